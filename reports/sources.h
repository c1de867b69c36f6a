/* sources.h — the documents the experiments and claims come from, as
 * references.
 *
 * Five documents (the project's seed documents) gave the suite its
 * experiments and the report its claims (claims.h).  Each is named by its
 * title and kind (article, notes, paper, lab report, course module); a
 * document without a title is named by its subject, and the reference says
 * so.  Each gives the hardware it measured on where it says.  The report
 * cites them by number ("[3]", a link to its "References" section, which
 * md_references lists at the end), in the claims' tables and in each
 * experiment's introduction, where a results file names them as the
 * descriptors did (the aliases: "an untitled article on memory coalescing",
 * "003", "seed 002").  Pure data and functions.
 */
#ifndef GM_SOURCES_H
#define GM_SOURCES_H

#include "../core/buf.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    int number;              /* its number in the list: [1], [2], ... */
    const char *title;       /* the document's title, or its subject when it has none */
    bool titled;             /* the document gives `title` */
    const char *kind;        /* "article", "notes", "paper", "lab report", "course module" */
    const char *described;   /* the reference's sentence: what it is, by whom where it says */
    const char *hardware;    /* what it measured on, in our words */
    const char *alias;       /* how descriptors and older results name it */
} gm_source;

extern const gm_source gm_sources[];
extern const size_t gm_sources_len;

/* The document named `name`: its title, its alias, or its seed number
 * ("002"); NULL when none is. */
const gm_source *gm_source_find(const char *name);

/* "Memory coalescing (article) [1]": the title (quoted when the document
 * gives it), the kind, and the number as a link to the references. */
void gm_source_cite_md(gm_buf *b, const gm_source *s);

/* A heading's text for the document: "[1] Memory coalescing (article)". */
void gm_source_heading(gm_buf *b, const gm_source *s);

/* text (from a results file) with every document named in it, by alias,
 * title or seed number ("seed 002", or "003" at the start of the text or of
 * an item of a list), cited as gm_source_cite_md does; the rest escaped as
 * Markdown text. */
void gm_sources_cite_text_md(gm_buf *b, const char *text);

/* Does text name one of the documents (as gm_sources_cite_text_md finds them)? */
bool gm_sources_cited(const char *text);

/* "## References": every document, numbered, with its kind, origin and
 * hardware. */
void gm_sources_md(gm_buf *b);

#endif

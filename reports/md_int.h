/* md_int.h — private to the Markdown report: render_md.c and the md_*.c files
 * behind it (one per part of the document, over the shared helpers of
 * md_util.c, as cmark's renderers share a small core).  Other files use
 * render.h.
 *
 *   render_md.c   gm_render_markdown: the parts in the order the report gives them
 *   md_head.c     the title, the device and collection table, the failed runs,
 *                 the table of contents
 *   md_summary.c  the summary table and the headlines
 *   md_explain.c  the run's top findings; each section's explanation and findings
 *   md_section.c  one experiment's section, from its question to its charts
 *   md_tables.c   the table of an experiment's runs (pivoted when large)
 *   md_limits.c   each layout's bytes down the memory hierarchy, what limits it
 *   md_model.c    the address-trace model's prediction beside the counters
 *   md_method.c   how the numbers were obtained
 *   md_parts.c    the GitHub form of a long report cut into comment-sized parts
 *   md_util.c     escaping shorthands, a run's name and check in words, folds
 *
 * Every part appends to a gm_buf; text from the results goes through md_text
 * or md_code (core/escape.h), numbers through core/fmt.h.
 */
#ifndef GM_MD_INT_H
#define GM_MD_INT_H

#include "../core/buf.h"
#include "../core/fmt.h"
#include "../core/results.h"
#include "charts.h"
#include "findings.h"
#include "runs.h"

#include <stdbool.h>
#include <stddef.h>

/* An absent value: "—". */
#define DASH GM_FMT_ABSENT

/* ---- md_util.c ------------------------------------------------------------ */

void md_text(gm_buf *b, const char *s);   /* text, escaped (gm_esc_md); NULL as "" */
void md_code(gm_buf *b, const char *s);   /* a code span (gm_esc_md_code); NULL as "" */
void md_spr(gm_buf *b, double v);         /* sectors per request: one decimal */
void md_cuda_version(gm_buf *b, int v);
void md_case(gm_buf *b, const gm_vary *v, const gm_run *run, const char *skip);
void md_run_named(gm_buf *b, const gm_run *run);   /* `v` of `exp` (p=1, q=2) */
const char *md_label(const char *metric, const char *fallback);
bool md_failed(const gm_run *run);        /* its check failed or stopped with an error */
void md_check_text(gm_buf *b, const gm_run *run, bool loud);
const char *md_exp_title(const gm_experiment *e);
void md_params_cell(gm_buf *b, const gm_section *s, const gm_run *run);

/* Folds: `which` numbers the summary (md_util.c and render_html.c list them). */
void md_fold_open(gm_buf *b, bool html, int which);
void md_fold_open_n(gm_buf *b, int which, size_t count);
void md_fold_close(gm_buf *b, bool html);

/* ---- md_parts.c: the GitHub form in comments -------------------------------- */

#define GM_GFM_COMMENT_MAX 65536   /* characters GitHub takes in an issue or comment body */
#define GM_GFM_PART_BYTES 60000    /* the most one part of a longer report takes */
/* md, or, when it is longer than GM_GFM_COMMENT_MAX, md cut at its sections
 * into parts of at most GM_GFM_PART_BYTES, each led by a marker line and a
 * line that says which part it is; takes md and returns the document. */
char *md_gfm_parts(char *md);

/* ---- the parts, in the document's order ---------------------------------- */

/* md_head.c */
void md_header(gm_buf *b, const gm_results *r, bool timestamp);
void md_top_warnings(gm_buf *b, const gm_sections *ss);
/* md, with "## Contents" before its first second-level heading (when it has
 * two or more); takes md and returns the document (the caller frees it). */
char *md_with_contents(char *md);

/* md_summary.c */
void md_summary(gm_buf *b, const gm_results *r, const gm_sections *ss);

/* md_explain.c */
void md_findings(gm_buf *b, const gm_findings *f, const gm_sections *ss, bool html);
void md_explain(gm_buf *b, const gm_results *r, const gm_section *s, const gm_findings *f,
                bool html);

/* md_section.c: section si of ss (github: the form for a GitHub issue) */
void md_section(gm_buf *b, const gm_results *r, const gm_sections *ss, size_t si,
                const gm_charts *charts, const char *chart_dir, const gm_findings *f,
                bool github);

/* md_tables.c */
void md_table(gm_buf *b, const gm_results *r, const gm_section *s, bool html);

/* md_limits.c: each layout down the memory hierarchy, and what limits it */
void md_limits(gm_buf *b, const gm_results *r, const gm_section *s, bool html);

/* md_model.c */
void md_predicted(gm_buf *b, const gm_section *s, bool html);

/* md_method.c */
void md_method(gm_buf *b, const gm_results *r, const gm_sections *ss, bool timestamp,
               bool html);

#endif

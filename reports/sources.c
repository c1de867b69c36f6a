/* sources.c — the source documents as references (sources.h).
 *
 * Titles, kinds, origins and hardware are read from the documents themselves
 * (the project's seeds/, whose README says which is which); the words here
 * are ours.
 */
#include "sources.h"

#include "../core/escape.h"

#include <string.h>

const gm_source gm_sources[] = {
    {1, "Memory coalescing", false, "article",
     "An article in two parts: the principles and mechanisms of coalescing, then its "
     "applications across fields",
     "none; its figures are worked examples", "an untitled article on memory coalescing"},
    {2, "Cache lines, sectors and coalescing", false, "notes",
     "Study notes, with diagrams of lines, sectors and the coalescing unit and the Nsight "
     "Compute counters to read",
     "none; its figures are worked examples", "untitled notes on cache lines and sectors"},
    {3, "Optimizing Memory Access Efficiency in CUDA Kernel via Data Layout Technique", true,
     "paper", "A research paper; the work was supported by NSF award #2348330",
     "an NVIDIA Tesla V100; the CPU of its serial times is not stated",
     "Optimizing Memory Access Efficiency in CUDA Kernel via Data Layout Technique"},
    {4, "Geavanceerde Computerarchitectuur: Lab 4", true, "lab report",
     "A lab report by T. Beck and W. Paesschesoone, Department of Computer Science, KU Leuven, "
     "academic year 2025–2026",
     "not stated", "Lab 4, Geavanceerde Computerarchitectuur (KU Leuven)"},
    {5, "Part 17: Memory Hierarchy", true, "course module",
     "A module of a CUDA course (10.cuda_basic/17.Memory_Hierarchy)",
     "an NVIDIA GeForce RTX 3090 for its matrix-multiplication figures; not stated for the "
     "others",
     "Part 17: Memory Hierarchy (CUDA course module)"},
};
const size_t gm_sources_len = sizeof gm_sources / sizeof gm_sources[0];

/* The seed number of the document: its number less one ("000" is [1]). */
static const gm_source *S_by_seed(int seed)
{
    for (size_t i = 0; i < gm_sources_len; i++)
        if (gm_sources[i].number == seed + 1)
            return &gm_sources[i];
    return NULL;
}

const gm_source *gm_source_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < gm_sources_len; i++)
        if (!strcmp(name, gm_sources[i].title) || !strcmp(name, gm_sources[i].alias))
            return &gm_sources[i];
    if (name[0] == '0' && name[1] == '0' && name[2] >= '0' && name[2] <= '9' && !name[3])
        return S_by_seed(name[2] - '0');
    return NULL;
}

void gm_source_cite_md(gm_buf *b, const gm_source *s)
{
    if (s->titled)
        gm_buf_puts(b, "“");
    gm_esc_md(b, s->title);
    gm_buf_puts(b, s->titled ? "” (" : " (");
    gm_esc_md(b, s->kind);
    gm_buf_printf(b, ") [\\[%d\\]](#references)", s->number);
}

void gm_source_heading(gm_buf *b, const gm_source *s)
{
    gm_buf_printf(b, "[%d] ", s->number);
    gm_buf_puts(b, s->title);
    gm_buf_printf(b, " (%s)", s->kind);
}

/* The document named at p, by title or alias, and the length of that name. */
static const gm_source *S_named_at(const char *p, size_t *len)
{
    for (size_t i = 0; i < gm_sources_len; i++) {
        const char *names[2] = {gm_sources[i].alias, gm_sources[i].title};
        for (int k = 0; k < 2; k++) {
            size_t n = strlen(names[k]);
            if (strncmp(p, names[k], n) == 0) {
                *len = n;
                return &gm_sources[i];
            }
        }
    }
    return NULL;
}

void gm_sources_cite_text_md(gm_buf *b, const char *text)
{
    gm_buf plain = GM_BUF_INIT;
    gm_buf_puts(&plain, "");
    const char *t = text ? text : "";
    for (const char *p = t; *p;) {
        size_t len = 0;
        const gm_source *s = S_named_at(p, &len);
        if (!s) {
            /* "seed 00N", or "00N" leading the text or an item of a list
             * (after ", " or "; ") and followed by " (", ",", ";" or the end */
            bool seed = strncmp(p, "seed 00", 7) == 0;
            const char *d = seed ? p + 5 : p;
            bool at_item = p == t || (p - t >= 2 && (p[-2] == ',' || p[-2] == ';') && p[-1] == ' ');
            if ((seed || at_item) && d[0] == '0' && d[1] == '0' && d[2] >= '0' && d[2] <= '9' &&
                !(d[3] >= '0' && d[3] <= '9') &&
                (seed || d[3] == '\0' || d[3] == ',' || d[3] == ';' ||
                 (d[3] == ' ' && d[4] == '('))) {
                s = S_by_seed(d[2] - '0');
                len = (size_t)(d + 3 - p);
            }
        }
        if (!s) {
            gm_buf_putc(&plain, *p++);
            continue;
        }
        gm_esc_md(b, plain.data);
        plain.len = 0;
        plain.data[0] = '\0';
        gm_source_cite_md(b, s);
        p += len;
    }
    gm_esc_md(b, plain.data);
    gm_buf_free(&plain);
}

bool gm_sources_cited(const char *text)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "");
    gm_sources_cite_text_md(&b, text);
    bool cited = strstr(b.data, "](#references)") != NULL;
    gm_buf_free(&b);
    return cited;
}

void gm_sources_md(gm_buf *b)
{
    gm_buf_puts(b, "## References\n\n"
                   "The documents the experiments and the claims come from. A document without a "
                   "title is named by its subject. None measured on the GPU of this report.\n\n");
    for (size_t i = 0; i < gm_sources_len; i++) {
        const gm_source *s = &gm_sources[i];
        gm_buf_printf(b, "%d. ", s->number);
        if (s->titled) {
            gm_buf_puts(b, "“");
            gm_esc_md(b, s->title);
            gm_buf_puts(b, "”");
        } else {
            gm_buf_puts(b, "*");
            gm_esc_md(b, s->title);
            gm_buf_puts(b, "* (untitled; named here by its subject)");
        }
        gm_buf_puts(b, ". ");
        gm_esc_md(b, s->described);
        gm_buf_puts(b, ". Hardware: ");
        gm_esc_md(b, s->hardware);
        gm_buf_puts(b, ".\n");
    }
    gm_buf_puts(b, "\n");
}

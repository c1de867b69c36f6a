/* srclines.h — the per-source-line tables of the report (issue 14): for each
 * kernel with per-line counters, the hottest lines by excess global sectors
 * and by excess shared wavefronts, with the code, the count, the ideal and the
 * excess as a share of the kernel's total; the line a finding or a layout
 * comparison cites; per-line comparison of two runs (diff, history). */
#ifndef GM_REPORT_SRCLINES_H
#define GM_REPORT_SRCLINES_H

#include "../core/buf.h"
#include "../core/results.h"
#include "../core/srclines.h"
#include "diff.h"

#include <stdbool.h>
#include <stddef.h>

/* Lines shown per table. */
#define GM_SRCLINES_TOP 5

/* The run with per-line counters collected for (experiment, variant) in r, or NULL. */
const gm_run *gm_srclines_run_of(const gm_results *r, const char *experiment,
                                 const char *variant);

/* The line with the most excess (sectors, or shared wavefronts) among lines
 * whose memory instruction classes include op ("LDG", "STG", "LDS", "STS";
 * NULL: any); NULL when no line has excess. */
const gm_srcline *gm_srclines_top(const gm_srclines *sl, bool shared, const char *op);

/* The excess (sectors, or shared wavefronts) of all the lines whose memory
 * instruction classes include op (NULL: any), and in *holders (may be NULL)
 * how many of them have some: what gm_srclines_top's line is a share of. */
long long gm_srclines_excess_of(const gm_srclines *sl, bool shared, const char *op,
                                size_t *holders);

/* Markdown: `file:line` then the code as a code span (when known). */
void gm_srcline_cite_md(gm_buf *b, const gm_srcline *l);
/* A gnuplot string literal "file:line: code" (single-quoted, safe). */
void gm_srcline_label_gnuplot(gm_buf *b, const gm_srcline *l);

/* The Markdown block for one report section (an experiment, or a program's
 * kernels): per variant with per-line counters, its hottest lines; a note for
 * a variant whose pass failed; the line that makes the difference between the
 * layout with the most excess and the one with the least.  Nothing when no
 * run has per-line counters. */
void gm_srclines_md_section(gm_buf *b, const gm_run *const *runs, size_t n);
/* The same, brief (the Markdown forms): one table of each layout's hottest
 * line (global sectors, shared wavefronts), the layouts without excess named
 * in one sentence, then the line that makes the difference.  page: for the
 * HTML page, which folds every hot line below it. */
void gm_srclines_md_brief(gm_buf *b, const gm_run *const *runs, size_t n, bool page);
/* Each layout's hottest lines in full (the page folds them under the brief
 * table); returns the number of layouts with per-line counters. */
size_t gm_srclines_md_layouts(gm_buf *b, const gm_run *const *runs, size_t n);

/* Per-line comparison of two runs of the same kernel: lines of either whose
 * sectors, wavefronts or instructions differ, as a Markdown table (largest
 * change first, at most max rows); nothing when both are equal.  Returns the
 * number of lines that differ. */
size_t gm_srclines_md_diff(gm_buf *b, const gm_srclines *base, const gm_srclines *head,
                           size_t max);

/* One line of either run whose counts differ (base or head NULL when the
 * line is on one side only), and the sum of the absolute changes of its
 * sectors, ideal sectors, wavefronts, ideal wavefronts and instructions. */
typedef struct {
    const gm_srcline *base, *head;
    double change;
} gm_srcline_change;

/* The lines of base and head whose counts differ, largest change first (ties
 * in file order); lines are matched as gm_srclines_match matches them (by
 * path relative to the source root and line, a moved line by its code; by
 * function and PC without line info).  *out (caller frees) borrows the
 * lines.  Returns the count. */
size_t gm_srclines_changes(const gm_srclines *base, const gm_srclines *head,
                           gm_srcline_change **out);
/* Markdown: where the line is, as code ("`kernels/transpose/kernels.cu:69`");
 * "`base` → `head`" when the two sides label it differently (a line that
 * moved, a file renamed). */
void gm_srcline_change_where_md(gm_buf *b, const gm_srcline_change *c);

/* One allocation of either run whose bytes, sectors or ideal differ (base
 * or head NULL when it is on one side only); matched by name, unnamed ones
 * by size. */
typedef struct {
    const gm_sl_alloc *base, *head;
} gm_sl_alloc_change;

/* The allocations of base and head whose counts differ, in base's order
 * (most excess first), then head's new ones.  *out (caller frees) borrows
 * them.  Returns the count. */
size_t gm_srclines_alloc_changes(const gm_srclines *base, const gm_srclines *head,
                                 gm_sl_alloc_change **out);

/* Those changes as a Markdown table (bytes asked, sectors, ideal, excess:
 * base → head); nothing when none.  Returns the count. */
size_t gm_srclines_md_diff_allocs(gm_buf *b, const gm_srclines *base, const gm_srclines *head);

/* The rows of d whose base and head runs both have collected per-line
 * counters, one per run pair (the first row of each head run).  *out (caller
 * frees) borrows the rows.  Returns the count. */
size_t gm_srclines_diff_pairs(const gm_diff *d, const gm_diff_row ***out);

/* For `gpumem-report diff` and the report's "Changes since": for each pair of
 * runs that both have per-line counters, the lines that changed (a code change
 * that moves the waste from one line to another shows as two rows; a line
 * that only moved, as one, its place before and after); one line
 * saying so when such pairs exist and no line changed; nothing when no pair
 * has them.  max_chars (0: no limit): whole runs' tables up to that size, then
 * a line counting the runs left out. */
void gm_srclines_md_diff_section(gm_buf *b, const gm_diff *d, size_t max_chars);

/* The method section's line on the per-line counts (reports/md_method.c
 * calls it first): how they were taken (the tracer in one extra run, or
 * CUPTI's SASS metrics one run per kernel, and why the tracer was not used),
 * how many, and the extra run's wall time.  false, writing nothing, for a
 * file that does not say its method (written before the tracer). */
bool gm_srclines_md_method(gm_buf *b, const gm_results *r, bool program);

#endif

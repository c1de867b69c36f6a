/* contrast.h — the question an experiment exists to answer, answered.
 *
 * An experiment's descriptor names a contrast (results.h: gm_experiment
 * question, contrast_a, contrast_b, contrast_at, contrast_counter): side a,
 * the layout suspected slower, against side b, each a selector "variant" or
 * "variant@param=value[,param=value]".  The answer compares one run of each
 * side at matched parameters (every parameter the selectors do not name takes
 * the same value in both), preferring the point contrast_at names, then the
 * largest work.  The report's summary row and each section's headline give
 * that pair's time ratio, the ratio of the counter the contrast is about, and
 * one sentence of why, built from the numbers.  Other contrasts of the
 * experiment (vector width, block size, tile size) stay in the section's
 * longer explanation, never in the headline.
 *
 * The same pair matching serves the claims (claims.h).  Pure functions.
 */
#ifndef GM_CONTRAST_H
#define GM_CONTRAST_H

#include "../core/buf.h"
#include "../core/results.h"
#include "runs.h"

#include <stdbool.h>
#include <stddef.h>

/* The run fits the selector "variant" or "variant@p=v[,p=v]". */
bool gm_sel_match(const gm_run *run, const char *sel);
/* The run fits the filter "p=v|v|v[,p=v...]" (NULL or "" fits every run;
 * a parameter the run lacks never fits). */
bool gm_filter_match(const gm_run *run, const char *filter);

typedef struct {
    const gm_run *a, *b;
} gm_pair;

/* Every pair (a, b) of passed, timed runs of the section with a fitting sel_a,
 * b fitting sel_b, a fitting filter, and every parameter neither selector names
 * equal in both.  In file order of a.  Caller frees *out. */
size_t gm_pairs(const gm_section *s, const char *sel_a, const char *sel_b, const char *filter,
                gm_pair **out);

/* A counter the contrast is about, of one run: "ld_spr", "st_spr" (sectors per
 * global load/store request), "shared_wpi" (shared wavefronts per instruction,
 * loads and stores together), "dram_bytes" (read + written), "ld_sectors",
 * "ld_requests" (global loads).  NaN when absent or unknown. */
double gm_counter(const gm_run *run, const char *kind);
/* "ld sectors/request", ...; "" for none or unknown. */
const char *gm_counter_label(const char *kind);
/* The counter's value as the report writes it ("3.0", "1.00 GiB"). */
void gm_counter_fmt(gm_buf *b, const char *kind, double v);

/* The answer of a section: the pair at the preferred point, NULL sides when
 * the experiment names no contrast or no pair matches. */
typedef struct {
    const gm_experiment *e;
    gm_pair pair;
    double time_ratio;        /* median time a / median time b */
    const char *counter;      /* the descriptor's counter kind, or NULL */
    double ca, cb;            /* its values; NaN when absent */
} gm_contrast;

bool gm_contrast_find(const gm_section *s, gm_contrast *out);
/* The same among the pairs both of whose runs were profiled: the point
 * nearest the preferred one where counters can say why (false when none). */
bool gm_contrast_find_profiled(const gm_section *s, gm_contrast *out);

/* "`a` (p=v)": a selector ("a@p=v") as it names its side (Markdown). */
void gm_selector_md(gm_buf *b, const char *sel);
/* "`interleaved` against `planar`" as the question's sides (Markdown). */
void gm_contrast_sides_md(gm_buf *b, const gm_experiment *e);
/* The parameters the pair shares, but those the selectors name
 * (Markdown-escaped text): "scale=64, block=256". */
void gm_pair_at_md(gm_buf *b, const char *sel_a, const char *sel_b, const gm_pair *p);
/* "`scalar` (offset=100)": a side with the parameters its selector names. */
void gm_pair_side_md(gm_buf *b, const gm_run *run, const char *sel);
/* One sentence of why, from the counters of a and b (Markdown, ends with '.'):
 * the counter that differs most (sectors per request, shared wavefronts per
 * instruction, DRAM bytes), else how busy DRAM is, else that the counters
 * measured do not explain the gap.  When the side with more of that counter
 * is the faster one, the counter that does limit the time (L1 or L2 hit
 * rate, DRAM bytes, occupancy, shared wavefronts: limits.h); when the time
 * grows less than the counter, what it follows instead.  r gives the ceiling
 * and the device (may be NULL); sel_a and sel_b name the sides (NULL: the
 * variant alone). */
void gm_pair_why_md(gm_buf *b, const gm_results *r, const gm_run *a, const char *sel_a,
                    const gm_run *b_run, const char *sel_b, const char *counter);

/* When the contrast's pair c was timed but not profiled: one more sentence
 * (Markdown, starting with a space) with the answer at the largest point
 * both of whose runs were profiled, and its why; nothing otherwise. */
void gm_contrast_profiled_md(gm_buf *b, const gm_results *r, const gm_section *s,
                             const gm_contrast *c);

/* A time or counter ratio: two decimals under 2 ("1.03×", so that a 3%
 * difference does not read as "1.0×"), else as gm_fmt_ratio. */
void gm_ratio_fmt(gm_buf *b, double x);

/* The section's headline: **The question.** ... **The answer** at the matched
 * point: the times, the time ratio, the counter ratio, why.  A Markdown
 * paragraph ending with a blank line; nothing when the contrast is missing. */
void gm_contrast_md(gm_buf *b, const gm_results *r, const gm_section *s);

#endif

/* srclines.h — per-instruction records of CUPTI's SASS metrics turned into
 * per-source-line counts (issue 14).  Pure CPU code: the collector (collectors/
 * gmc_sass.c) produces the records, the CLI stores the lines in a gm_run, the
 * reports rank and render them.
 *
 * The record text format (what `gpumem-report sass-child` writes and what the
 * recorded fixtures in tests/fixtures hold), one instruction per line,
 * tab-separated:
 *
 *     # gpumem-report sass records 1
 *     FUNCTION  PC  FILE  LINE  inst global_ld global_st shared_ld shared_st
 *               sectors sectors_ideal wavefronts wavefronts_ideal
 *
 * PC in hex (0x...), FILE "-" and LINE 0 when the kernel has no line info.
 * Lines starting with '#' are comments. */
#ifndef GM_SRCLINES_H
#define GM_SRCLINES_H

#include "buf.h"
#include "gm_error.h"
#include "results.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char *function;
    unsigned long long pc;
    char *file;          /* NULL when unknown */
    long long line;      /* 0 when unknown */
    long long count[GM_SL_N];
} gm_sl_record;

#define GM_SL_RECORDS_HEADER "# gpumem-report sass records 1"

/* Parse record text; name is used in messages ("FILE:LINE: ..."). */
gm_status gm_sl_records_parse(const char *text, const char *name, gm_sl_record **out,
                              size_t *n, gm_error *err);
/* Append one record line to b (tabs or newlines in names become '?'). */
void gm_sl_record_write(gm_buf *b, const gm_sl_record *r);
void gm_sl_records_free(gm_sl_record *r, size_t n);

/* Aggregate records into sl->lines (replacing what was there): instructions
 * with a file and line are summed per (file, line); the others stay one line
 * per (function, pc).  Instructions that counted nothing are left out.  Sorted
 * by file, line, function, pc.  sl->line_info is true when any record had a
 * line.  Memory instruction classes ("LDG STG LDS STS") are set from the op
 * counters.  Does not touch status/note/seconds. */
void gm_srclines_from_records(gm_srclines *sl, const gm_sl_record *r, size_t n);

/* Fill each line's text from its file when the file is readable (first
 * 240 bytes of the line, control characters as spaces, trailing blanks cut). */
void gm_srclines_read_text(gm_srclines *sl);

/* Sum of counter k over the lines. */
long long gm_srclines_total(const gm_srclines *sl, gm_sl_counter k);

/* Excess of a line: sectors - ideal, or wavefronts - ideal (never negative). */
long long gm_srcline_excess_sectors(const gm_srcline *l);
long long gm_srcline_excess_wavefronts(const gm_srcline *l);

/* Indices of the lines with the largest excess (sectors when !shared, else
 * wavefronts), largest first, ties by file order; lines with no excess left
 * out.  Returns how many (<= max) were written to idx. */
size_t gm_srclines_rank(const gm_srclines *sl, bool shared, size_t *idx, size_t max);

/* Which runs the per-line pass measures: one per variant (experiment and
 * variant name) among the runs that passed their check and have counters.
 * The one that wastes most by the counters already collected (global sectors
 * per request, loads plus stores, plus shared wavefronts per instruction,
 * loads plus stores); wastes within 2 % of the variant's largest count as
 * equal, and of those the last in the file (the largest case of a sweep) is
 * taken.  The tolerance keeps the choice the same from run to run where the
 * wastes differ only by the counters' noise (shared wavefronts per
 * instruction move by up to 0.07, under 2 % of a sum that holds two sector
 * ratios of 1 or more), so that history and diff find the same case on both
 * sides; a real difference, such as 2.5 against 2.0 load sectors per
 * request, stays one.
 * pick[i] is set for the chosen runs (r->n_runs entries); returns how many. */
size_t gm_srclines_pick(const gm_results *r, bool *pick);

/* The source root of sl's lines (a directory; NULL: unknown): each line's
 * file under it becomes its path relative to it
 * ("/src/gpumem-report/kernels/transpose/kernels.cu" under
 * "/src/gpumem-report": "kernels/transpose/kernels.cu"), and root is kept in
 * sl->root when some file was; files elsewhere (the toolkit's headers) stay
 * as they are.  The collector calls it after gm_srclines_read_text, which
 * reads the files by their full paths. */
void gm_srclines_relate(gm_srclines *sl, const char *root);

/* Where a line is, as every output labels it: its file relative to the
 * source root and its line ("kernels/transpose/kernels.cu:69"); a file
 * recorded whole (no root known: a program, a file from before the root was
 * recorded; or one outside the root) by its base name ("exp_transpose.cu:69");
 * without line info, the function as symbol.h reads it and the PC
 * ("elementwise_kernel<…>+0x13c0"), never its mangled symbol. */
void gm_srcline_where(const gm_srcline *l, char *out, size_t cap);

/* Which line of b is each line of a, where two runs of one kernel are
 * compared (diff, history): match[i] is the index in b of a[i]'s line, or
 * GM_SL_NONE.  One to one, in three rounds:
 *   1. the same line of the same file, its code the same (or unknown);
 *   2. a line that moved: the same code (leading and trailing blanks aside)
 *      on another line, the nearest in the same file first;
 *   3. the same line of the same file, its code edited.
 * "The same file": files are paired first, one to one, by their paths
 * relative to the source root where both sides know it (equal, or not the
 * same file), else by the longest common suffix of the two paths in whole
 * components (at least the base name; a relative path must be all of it),
 * so that one commit collected in two checkouts pairs every file.  Lines
 * without line info match by function and PC. */
#define GM_SL_NONE ((size_t)-1)
void gm_srclines_match(const gm_srcline *a, size_t na, const gm_srcline *b, size_t nb,
                       size_t *match);

#ifdef __cplusplus
}
#endif

#endif

/* diff.h — compare two results files (a base commit and a head commit) run by
 * run and metric by metric, and say what got better, what got worse and what
 * only moved within its noise.
 *
 *   gm_diff_compute()    pairs runs (diff_pair.c), applies thresholds
 *                        (diff_threshold.c) and the noise test (diff_judge.c)
 *   gm_diff_to_markdown() / gm_diff_to_html() / gm_diff_to_json()
 *                        pure renderers (diff_render.c): same diff in, same bytes out
 *
 * The policy (directions, default thresholds, the statistics, exit codes) is
 * documented for users in docs/diff.md; the comments here give the reasons.
 */
#ifndef GM_DIFF_H
#define GM_DIFF_H

#include "../core/buf.h"
#include "../core/catalog.h"
#include "../core/gm_error.h"
#include "../core/results.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- the noise test (diff_judge.c) ---------------------------------------- */

typedef enum {
    GM_MWU_NONE = 0,   /* not run: a side has no samples */
    GM_MWU_EXACT,      /* exact null distribution of U (no ties, both n < 50) */
    GM_MWU_NORMAL      /* normal approximation, tie and continuity corrected */
} gm_mwu_method;

typedef struct {
    gm_mwu_method method;
    size_t n1, n2;
    double u1;         /* U of the first sample: pairs (x, y) with x > y, ties count 1/2 */
    double u;          /* min(u1, n1*n2 - u1) */
    double z;          /* normal method only (NaN otherwise) */
    double p;          /* two-sided p-value; NaN when method is NONE */
    bool ties;         /* some value occurs more than once in the pooled samples */
} gm_mwu;

/* Two-sided Mann–Whitney U (Wilcoxon rank-sum) test of x against y.  Uses
 * the exact distribution when there are no ties and n1, n2 < 50 (the rule R's
 * wilcox.test follows), the normal approximation with tie correction and a
 * 0.5 continuity correction otherwise.  NaN samples are not allowed (the
 * results reader rejects them). */
gm_mwu gm_mann_whitney(const double *x, size_t n1, const double *y, size_t n2);

const char *gm_mwu_method_name(gm_mwu_method m);   /* "none", "exact", "normal" */

/* ---- thresholds (diff_threshold.c) ---------------------------------------- */

typedef enum {
    GM_THR_EXACT = 0,  /* any difference counts (reals: beyond 1e-12 relative, i.e. rounding) */
    GM_THR_RELATIVE,   /* |head - base| > value * |base| */
    GM_THR_ABSOLUTE    /* |head - base| > value, in the metric's unit */
} gm_thr_kind;

/* A floor is a second, absolute bound: a change counts only when it is beyond
 * the threshold AND beyond the floor.  A relative band alone misjudges
 * counters that wobble by a fixed amount whatever their size (20 KiB of
 * write-backs are +60 % of a kernel that writes 30 KiB); a floor alone
 * misjudges the big ones. */
typedef enum {
    GM_FLOOR_NONE = 0,
    GM_FLOOR_ABSOLUTE,   /* |head - base| > floor, in the metric's unit (ms for time) */
    GM_FLOOR_PER_INST    /* |head - base| > floor * N, N the larger of the two runs' counts of
                            shared instructions of the metric's direction
                            (gm_diff_inst_metric): shared conflicts and wavefronts only */
} gm_floor_kind;

typedef struct {
    gm_thr_kind kind;
    double value;      /* fraction for RELATIVE (0.05 = 5 %), unit for ABSOLUTE */
    gm_floor_kind floor_kind;
    double floor;      /* unit for ABSOLUTE, wavefronts per instruction for PER_INST */
} gm_threshold;

/* The key a timing row goes by on the command line and in the JSON. */
#define GM_DIFF_TIME "time"

/* The default policy (gm_diff_default_threshold).  Each bound sits above the
 * run-to-run noise measured on the H100 (NVIDIA H100 80GB HBM3, driver
 * 580.159.04, 2026-11-22) between runs of the same kernels: two full-suite
 * runs ten minutes apart (tests/fixtures/h100-rerun-0747.json, -0757.json:
 * 238 runs profiled in both), and the transpose and banks experiments of
 * tests/fixtures/h100-transpose-pad-base.json against both, and against
 * every run of -head.json but the one the code change touched (all pairs:
 * bench/results/diff-noise-2026-11-22.txt, made by bench/diff-noise.py). */

/* Event-timed median: 5 % and the samples must differ (Mann–Whitney).  No
 * floor: the medians of kernels near 7 us moved by up to 5.6 us (+88 %)
 * between the two full-suite runs (28 of 355 medians beyond 5 %, all of them
 * matmul at n <= 96 or the CPU variant dp/cpu_serial), but the real
 * regression of the padded transpose at n=1024 is +3.4 us: a floor that hid
 * the noise would hide it.  The counters of such kernels are the signal. */
#define GM_DIFF_TIME_REL 0.05
/* Shared-memory bank conflicts and wavefronts: beyond 1 % AND beyond 0.05 per
 * shared instruction of the same direction.  Noise measured: at most 0.012
 * per instruction (1608 load conflicts over 131072 loads, transpose/tiled
 * n=2048), whatever the level (the tiled transpose sits at 31.4 conflicts per
 * load, the padded one at 0.11); 0.05 is 4 times that and still sees one
 * 2-way conflict in 20 shared instructions.  The real regression of a tile
 * without padding is +31 per load. */
#define GM_DIFF_SHARED_REL 0.01
#define GM_DIFF_SHARED_PER_INST 0.05
/* DRAM bytes read / written: beyond 2 % AND beyond 2 MiB.  Noise measured:
 * |change| up to 947200 bytes read (0.90 MiB, grid3d/xmajor n=256) and
 * 728832 written; among changes beyond 2 % the largest was 445440 bytes
 * (write-backs of a kernel that wrote 2.6 MB: -17 %).  Written bytes are what
 * L2 evicts before the kernel ends, so they wobble by tens of KiB even when
 * the kernel writes a few KiB. */
#define GM_DIFF_DRAM_BYTES_REL 0.02
#define GM_DIFF_DRAM_BYTES_FLOOR (2.0 * 1024.0 * 1024.0)
/* DRAM bytes per second: beyond 10 % AND 1e10 bytes/s (10 GB/s, 0.3 % of the
 * H100's 3352 GB/s).  Noise measured: kernels that move a few KiB changed by
 * up to x171 (4 MB/s to 0.7 GB/s); beyond 10 %, no change exceeded 1.8e9
 * bytes/s. */
#define GM_DIFF_DRAM_RATE_REL 0.10
#define GM_DIFF_DRAM_RATE_FLOOR 1e10
/* Varying percentages (DRAM % of peak, L1 hit rate, occupancy): 5 points.
 * Noise measured: up to 3.3 points (L1 hit 3.27, occupancy 3.24, DRAM % of
 * peak 2.66). */
#define GM_DIFF_PCT_POINTS 5.0
/* L2 hit rate: 10 points.  Noise measured: 8.6 and 6.5 points (matmul/naive
 * n=384), and 18.5 in a kernel whose L2 hit rate read 118 %, a value no
 * consistent pair of counts gives. */
#define GM_DIFF_L2_HIT_POINTS 10.0
/* The profiler's duration (one pass, clocks as found): 20 %.  Noise measured:
 * up to 14.6 % (matmul/naive n=384, 85 to 98 us).  The time row, which has
 * samples to test, is the time gate. */
#define GM_DIFF_DURATION_REL 0.20
/* Metrics the catalog does not know: 5 %, direction neither. */
#define GM_DIFF_UNKNOWN_REL 0.05

/* The noise floors of time, besides its threshold (S_time_row, S_time_alone
 * in diff_judge.c).
 *
 * Few samples.  The rank test cannot reach alpha with fewer than 4 samples a
 * side (1 against 20 gives p >= 2/21; a kernel of a program launched once has
 * one sample: its profiled duration).  Then the change must exceed the
 * spread of the kernel's own repeated launches, (max - min) / median of the
 * side with the larger spread, or, with one sample on each side, this
 * default: 10 %.  The profiler's duration of one pass moved by at most 7 %
 * between the two full-suite runs for 345 of 346 kernels (one 14.6 %,
 * matmul/naive n=384, a time no count explained: the floor below takes it). */
#define GM_DIFF_ONE_SAMPLE_REL 0.10
/* Time alone.  Between two sessions of the same kernels, the medians of
 * kernels near 7 us moved by up to 5.6 us (+88 %: matmul at n <= 96), kernels
 * near 80 us by up to 5 % (3.98 us, transpose/naive n=2048), kernels of
 * 200 us and more by at most 1.3 % (1.24 ms of dp/diagonal n=1024): the
 * samples of one session say nothing about the next one's clocks, and the
 * noise is in microseconds, not per cent.  A time that moved while no count
 * of its run moved the same way (a worse count for a slower time, a better
 * one for a faster time, or a request or instruction count that changed) is
 * judged against this floor too: 5 % or more (time's default threshold) AND
 * beyond 10 us, or it is within noise; so a 5 % regression of a kernel of
 * 200 us or more is caught, and the jitter of short kernels is not.  When a
 * count moved, the code changed and the time needs only its threshold and
 * test (the padded transpose at n=1024: +3.4 us, +55 %, with +31 wavefronts
 * per load).  An explicit --threshold for time replaces the floor. */
#define GM_DIFF_TIME_ALONE_REL 0.05
#define GM_DIFF_TIME_ALONE_MS 0.010

/* Default threshold for a metric name (GM_DIFF_TIME for the event timing):
 * the constants above; catalog metrics flagged deterministic: exact. */
gm_threshold gm_diff_default_threshold(const char *metric);

/* The shared-instruction count a per-instruction floor divides by: the load
 * instructions for shared load conflicts and wavefronts, the store ones for
 * stores; NULL for any other metric. */
const char *gm_diff_inst_metric(const char *metric);

/* Direction of a metric: the catalog's, lower for GM_DIFF_TIME, neither for
 * names the catalog does not know. */
gm_direction gm_diff_direction(const char *metric);

/* What a row stands for, and whether it gates by default.  Counts gate,
 * rates explain: a reviewer owns the sectors, requests, wavefronts,
 * instructions and bytes the code moves, and the time it takes; the rates
 * derived from them (hit rates, % of peak, bytes per second, efficiency,
 * sectors per request, occupancy, the profiler's duration beside the median)
 * move with them, or with what L2 happened to hold, and are shown beside the
 * counts as the reason.  A rate gates only when a --threshold names it. */
typedef enum {
    GM_DIFF_ROLE_RUN = 0,   /* a row about a whole run: failed, new, removed, not run */
    GM_DIFF_ROLE_TIME,      /* the event-timed median; the profiler's duration of a run
                               without timing on either side */
    GM_DIFF_ROLE_COUNT,     /* sectors, requests, conflicts, wavefronts, instructions,
                               DRAM bytes; metrics not in the catalog named *.sum */
    GM_DIFF_ROLE_RATE       /* hit rates, % of peak, bytes/second, efficiency,
                               sectors/request, occupancy, duration; other unknown names */
} gm_diff_role;

/* The role of a metric by name (GM_DIFF_TIME: time; the duration: rate). */
gm_diff_role gm_diff_metric_role(const char *metric);

const char *gm_diff_role_name(gm_diff_role r);   /* "run", "time", "count", "rate" */

/* Parse "METRIC=BOUND[,FLOOR]".  BOUND: "5%" (relative), "0.5" (absolute) or
 * "exact"; FLOOR (not with exact): a number in the metric's unit, optionally
 * with KiB, MiB or GiB (x 1024^k), or "0.05/inst" (per shared instruction:
 * shared conflicts and wavefronts only, named by ncu name or label).  METRIC
 * is returned as written (heap, caller frees); it is resolved against the
 * files later. */
gm_status gm_threshold_parse(const char *spec, char **metric, gm_threshold *thr, gm_error *err);

/* "exact", "5 %", "0.5", "2 %, 2 MiB", "1 %, 0.05/inst" — written to a caller
 * buffer of n bytes. */
void gm_threshold_format(const gm_threshold *t, const char *unit, char *out, size_t n);

/* True when a and b are the same policy. */
bool gm_threshold_equal(const gm_threshold *a, const gm_threshold *b);

/* ---- the comparison ------------------------------------------------------ */

/* Row statuses in order of severity: the Markdown table is sorted by it. */
typedef enum {
    GM_DIFF_REGRESSED = 0,  /* worse, beyond the threshold (and significant, for time) */
    GM_DIFF_FAILED,         /* validation failed or errored in either run */
    GM_DIFF_INCOMPARABLE,   /* cannot be judged: different collection, units, L2 flush... */
    GM_DIFF_IMPROVED,       /* better, beyond the threshold (and significant, for time) */
    GM_DIFF_CHANGED,        /* beyond the threshold, for a metric with no better direction */
    GM_DIFF_NEW,            /* only in head */
    GM_DIFF_REMOVED,        /* only in base */
    GM_DIFF_NOISE,          /* time beyond the threshold, but the samples do not differ */
    GM_DIFF_UNCHANGED,      /* within the threshold */
    GM_DIFF_N_STATUS
} gm_diff_status;

const char *gm_diff_status_name(gm_diff_status s);  /* "regressed", ..., "within noise" */

typedef struct {
    char *metric;      /* as given on the command line */
    gm_threshold thr;
} gm_diff_override;

/* A --pair rule: base runs named FROM pair with head runs named TO.  A name
 * is "EXPERIMENT/VARIANT", or "VARIANT" (any experiment, which stays); one
 * '*' in FROM matches any text and a '*' in TO stands for that text
 * ("transpose/tiled_*=transpose/smem_*"). */
typedef struct {
    char *from, *to;
} gm_diff_pair;

/* Parse "FROM=TO" (heap strings in *p, caller frees both); GM_ERR_VALUE when
 * a side is empty, has more than one '*', or TO has a '*' that FROM lacks. */
gm_status gm_diff_pair_parse(const char *spec, gm_diff_pair *p, gm_error *err);

typedef struct {
    const gm_diff_override *overrides;
    size_t n_overrides;
    double alpha;      /* significance level of the noise test; 0 means 0.05 */
    bool force;        /* judge rows even when the files were collected differently */
    const char *base_name;   /* names for error messages ("base", "head" when NULL) */
    const char *head_name;
    const gm_diff_pair *pairs;   /* renames, applied to base runs, first match wins */
    size_t n_pairs;
    bool allow_missing;          /* runs of base missing from head do not fail the gate */
} gm_diff_options;

/* How a time row's samples were judged. */
typedef enum {
    GM_NOISE_NONE = 0,         /* not a time row, or no samples (threshold only) */
    GM_NOISE_TEST,             /* the rank test (p < alpha) */
    GM_NOISE_SPREAD,           /* too few samples for the test: the spread of the launches */
    GM_NOISE_ONE_SAMPLE        /* one sample a side: GM_DIFF_ONE_SAMPLE_REL */
} gm_diff_noise;

typedef struct {
    gm_diff_status status;
    const gm_run *base;        /* NULL for a new run */
    const gm_run *head;        /* NULL for a removed run */
    const char *metric;        /* ncu name, GM_DIFF_TIME, or NULL for a whole-run row */
    const gm_metric_info *info;   /* catalog entry or NULL */
    const char *unit;          /* "ms" for time; NULL for a whole-run row */
    gm_direction better;
    gm_value vbase, vhead;     /* ABSENT where a side has none; time: median in ms */
    double delta;              /* head - base; NaN when either is absent */
    double ratio;              /* head / base; NaN when undefined (base 0, absent) */
    gm_threshold thr;
    double floor;              /* the absolute floor judged against, in the metric's unit
                                  (a per-instruction floor times the instructions); 0: none;
                                  NaN: per-instruction floor without an instruction count
                                  (judged by the threshold alone, the note says so) */
    double per_inst;           /* delta per shared instruction (per-instruction floors only);
                                  NaN otherwise */
    gm_mwu test;               /* time rows only; method NONE otherwise */
    gm_diff_role role;
    bool gates;                /* its status can fail the gate: time and counts always, a
                                  rate when a --threshold names it */
    bool thr_given;            /* the threshold came from --threshold */
    gm_diff_noise noise;       /* time rows: what the samples were judged by */
    double noise_floor;        /* GM_NOISE_SPREAD, GM_NOISE_ONE_SAMPLE: the relative floor */
    bool alone;                /* time rows: no count moved with it, so the time-alone floor
                                  (GM_DIFF_TIME_ALONE_*) applied */
    bool program;              /* the runs are kernels of a program, paired by kernel and
                                  NVTX range (their launch configurations are shown) */
    double magnitude;          /* |ln ratio| (inf when from or to 0): sort key within a status */
    char note[160];            /* why failed / incomparable / how judged; "" if nothing */
    size_t order;              /* pairing order: the last sort key, for stable output */
} gm_diff_row;

typedef struct {
    const gm_results *base, *head;   /* borrowed: must outlive the diff */
    double alpha;
    bool comparable;           /* the files were collected the same way */
    bool forced;               /* comparable is false and rows were judged anyway */
    char **reasons;            /* what makes them incomparable, one per item */
    size_t n_reasons;
    char **notes;              /* differences that do not prevent comparison */
    size_t n_notes;
    gm_diff_row *rows;         /* sorted by status, then magnitude (largest first), then names */
    size_t n_rows;
    size_t counts[GM_DIFF_N_STATUS];
    size_t n_runs_paired, n_runs_new, n_runs_removed;
    bool allow_missing;        /* from the options */
    size_t n_pairs;            /* --pair rules applied */
} gm_diff;

/* Compare head against base.  Fails (GM_ERR_VALUE, message naming the runs)
 * when a file holds two runs with the same experiment, variant and
 * parameters, or when an override names a metric that is neither GM_DIFF_TIME,
 * a catalog name or label, nor a metric found in either file.  On success
 * *out owns its rows (free with gm_diff_free) and borrows base and head. */
gm_status gm_diff_compute(const gm_results *base, const gm_results *head,
                          const gm_diff_options *opts, gm_diff *out, gm_error *err);

void gm_diff_free(gm_diff *d);

/* The order diff pairs runs by: experiment, variant, then the parameters by
 * name with numbers compared by value (1024 pairs 1024.0); 0 when a and b
 * are the same case. */
int gm_diff_run_key_cmp(const gm_run *a, const gm_run *b);

/* The test gm_diff_compute makes of each file alone: GM_ERR_VALUE (message
 * naming `name` and the runs) when two runs have the same experiment, variant
 * and parameters.  For a caller that must refuse a baseline before it spends
 * time producing the other file. */
gm_status gm_diff_check_file(const gm_results *r, const char *name, gm_error *err);

/* True when the diff should fail a gate: a regressed row, a run whose
 * validation failed or errored in head, runs of base missing from head
 * (unless allow_missing), or no run paired at all.  (Incomparable files are
 * the caller's decision: the CLI exits 2 unless --force.) */
bool gm_diff_has_regression(const gm_diff *d);

/* The one-line verdict of the gate: "fail: 2 regressions, 232 of 256 runs
 * missing from head (24 runs paired)", "pass: no regressions, 3 improvements
 * (256 runs paired)".  Caller frees. */
char *gm_diff_gate_line(const gm_diff *d);

/* "2 regressions, 1 improvement, 140 unchanged" and the other non-zero
 * counts, in severity order.  Caller frees. */
char *gm_diff_verdict(const gm_diff *d);

/* ---- verdicts (diff_verdict.c) -------------------------------------------- */

/* One verdict per layout (experiment and variant) or program kernel: its
 * rows at every parameter point, folded under one line that says what
 * moved.  The diff's rows are sorted by verdict (gm_diff_compute), so the
 * JSON and CSV follow the Markdown's order. */
typedef struct {
    gm_diff_status status;     /* the most severe status of its rows */
    const char *experiment;    /* borrowed from its runs */
    const char *variant;       /* head's name (base's for a removed run) */
    size_t *rows;              /* indexes into d->rows: time first, then counts, then rates;
                                  whole-run rows first of all; then by status and run */
    size_t n_rows;
    size_t n_runs;             /* the layout's runs (parameter points) in the diff */
    bool rates_only;           /* only rates moved (status changed): shown with --all only */
    bool program;              /* a program's kernel (gm_diff_row.program) */
    char *summary;             /* "1 -> 32-way shared load conflict, +55..93 % time in all
                                  4 runs" (raw text: escape before use) */
    double magnitude;          /* the largest |ln ratio| of its rows of its status */
    size_t order;              /* the smallest pairing order of its rows */
} gm_diff_group;

/* The verdicts of d, most severe first (status, then gating before
 * not, then magnitude, then pairing order).  Built from the rows'
 * current statuses, so a caller that rejudges rows (history gate) gets
 * verdicts that agree.  *out: caller frees with gm_diff_groups_free. */
size_t gm_diff_groups(const gm_diff *d, gm_diff_group **out);
void gm_diff_groups_free(gm_diff_group *v, size_t n);

/* Sort d->rows in verdict order (called by gm_diff_compute). */
void gm_diff_sort_rows(gm_diff *d);

/* True when r is a rate that another row of its run already says, and the
 * Markdown leaves out: the profiler's duration beside the median time, DRAM
 * % of peak beside DRAM bytes/second. */
bool gm_diff_row_repeats(const gm_diff *d, const gm_diff_row *r);

/* "n=1048576, stride=2": a run's parameters sorted by name, appended to b
 * raw (escape before use). */
void gm_diff_params_text(gm_buf *b, const gm_run *run);

/* The unit a difference is given in: "pp" (percentage points) for "%", the
 * unit itself otherwise. */
const char *gm_diff_unit_short(const char *unit);

/* ---- rendering (diff_render.c) ------------------------------------------- */

/* The Markdown of a diff is a pull-request comment by default: the changed
 * rows only, the long parts folded in <details>, and at most
 * GM_DIFF_MD_MAX_CHARS characters (GitHub refuses comments over 65,536). */
#define GM_DIFF_MD_MAX_CHARS 60000
/* Of that, at most this much for the per-source-line section (whole runs'
 * tables; the rest counted): the table of rows comes first. */
#define GM_DIFF_MD_LINES_CHARS 12000

typedef struct {
    const char *base_name;     /* file names shown in the header (may be NULL) */
    const char *head_name;
    bool only_changed;         /* leave out unchanged and within-noise rows (the default
                                  of the CLI; `all` overrides it) */
    size_t max_rows;           /* 0: all */
    bool in_report;            /* a section of the report: say so where options are named */
    bool all;                  /* every row, nothing folded, no size cap (--all) */
    bool html;                 /* the Markdown goes to HTML: no raw <details> tags */
    size_t max_chars;          /* cap on the Markdown, 0: GM_DIFF_MD_MAX_CHARS (unless all) */
    const char *full_name;     /* where the full diff is, named by the cut line (may be NULL) */
    const char *gnuplot;       /* the HTML's chart: gnuplot program, NULL for "gnuplot" */
} gm_diff_render;

/* GitHub-flavoured Markdown: verdict, header (commits, devices), banner when
 * incomparable, the table, and how the rows were judged.  Caller frees. */
char *gm_diff_to_markdown(const gm_diff *d, const gm_diff_render *ro);

/* The diff as a section of the report (`gpumem-report render --baseline`):
 * "## Changes since `<base commit>`", the verdict, the header table and the
 * banner when the files were collected differently, then the table of the
 * rows that changed (only_changed and in_report forced on) and how rows are
 * judged.  Appended to b (escaped Markdown, ending with a blank line). */
void gm_diff_md_section(gm_buf *b, const gm_diff *d, const gm_diff_render *ro);

/* A self-contained HTML page: the same Markdown through cmark-gfm (table
 * extension, raw HTML off), CSS inside, an inline SVG bar chart of the
 * largest changes drawn by gnuplot through the report's chart module
 * (charts.h); no script, no external link.  NULL with err on failure
 * (GM_ERR_GNUPLOT when gnuplot is missing or fails). */
char *gm_diff_to_html(const gm_diff *d, const gm_diff_render *ro, gm_error *err);

/* The diff for machines (structure in docs/diff.md), with the per-line
 * counts that changed ("source_lines").  `exit_code` is written
 * into it as given.  Caller frees. */
char *gm_diff_to_json(const gm_diff *d, const gm_diff_render *ro, int exit_code);

/* Every row (unchanged ones too) as CSV (RFC 4180, CRLF line ends, a header
 * line): status, experiment, variant, params, metric, unit, base, head,
 * delta, ratio, p, base_check, head_check, note, line; numbers as they read
 * back, empty when absent.  Then a row per source line and per-line counter
 * that changed between runs that both have per-line counts (status
 * "changed", metric "source_line.<counter>", note the line's code, line
 * "file:line").  Caller frees. */
char *gm_diff_to_csv(const gm_diff *d);

#endif

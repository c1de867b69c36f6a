/* runs.h — the run analysis the report's text and charts share.
 *
 * The runs of each experiment as a section, which of them passed and which
 * do the same useful work (the comparison group), the fastest and slowest of
 * that group, the parameters that vary, and the sweep along one parameter.
 * Pure functions of a gm_results; no output.
 */
#ifndef GM_RUNS_H
#define GM_RUNS_H

#include "../core/buf.h"
#include "../core/fmt.h"
#include "../core/results.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- analysis ------------------------------------------------------------ */

/* The parameters of a set of runs that do not take one value across it (a
 * parameter missing from some runs counts as varying), found once so that
 * naming each run of a set costs that run's own parameters, not the whole
 * set again: every run of a large section is named several times. */
typedef struct {
    size_t n;                   /* runs in the set */
    const char **fixed;         /* names every run has with one value, sorted;
                                   borrowed from the runs */
    size_t n_fixed;
} gm_vary;

void gm_vary_build(const gm_run *const *set, size_t n, gm_vary *out);
void gm_vary_free(gm_vary *v);
/* Does the parameter `name` vary across the set?  (A name no run has varies
 * unless the set is empty.) */
bool gm_vary_varies(const gm_vary *v, const char *name);
/* gm_runs_params, gm_runs_case_label and gm_runs_case_md with the set's
 * varying parameters found beforehand: same output. */
void gm_vary_params(const gm_vary *v, const gm_run *run, const char *skip, gm_buf *b);
void gm_vary_case_label(const gm_vary *v, const gm_run *run, const char *skip, gm_buf *b);
void gm_vary_case_md(const gm_vary *v, const gm_run *run, const char *skip, gm_buf *b);

/* One experiment as the report sees it.  Strings and runs are borrowed from
 * the gm_results, which must outlive the section. */
typedef struct {
    const gm_experiment *exp;   /* the experiment; for runs whose experiment id is
                                   not listed, a synthesized one (see `synth`) */
    gm_experiment synth;        /* id = title = the run's experiment id */
    bool listed;
    const gm_run **runs;        /* every run of the experiment, in file order */
    size_t n_runs;
    size_t n_passed, n_failed, n_error, n_not_run;
    size_t n_unchecked;         /* of n_passed: measured with no reference to check against
                                   (check "no-reference": a program's own kernels) */
    /* The comparison group: passed runs that do the same useful work (equal
     * bytes_read, bytes_written and flops), so their times compare directly.
     * The largest such group; on a tie, the one moving the most bytes. */
    const gm_run **group;
    size_t n_group;
    const gm_run *best, *worst; /* by median time within the group; NULL when fewer
                                   than two runs of the group have a time */
    bool has_sweep;             /* sweep_param has >= 2 distinct numeric values among passed runs */
    gm_vary vary;               /* the parameters varying across runs, found once */
    gm_vary vary_group;         /* ... across group */
} gm_section;

typedef struct {
    gm_section *v;
    size_t n;
} gm_sections;

/* Sections in the order of results->experiments, then one per unlisted
 * experiment id in order of first appearance. */
void gm_sections_build(const gm_results *r, gm_sections *out);
void gm_sections_free(gm_sections *s);

/* Parameters of `run` that do not take one value across `set` (a parameter
 * missing from some runs counts as varying), except `skip` (may be NULL), as
 * "name=value, name=value"; nothing when none.  Appended to b, unescaped. */
void gm_runs_params(const gm_run *const *set, size_t n, const gm_run *run, const char *skip,
                    gm_buf *b);
/* "variant" or "variant (name=value, ...)" with the parameters varying across set. */
void gm_runs_case_label(const gm_run *const *set, size_t n, const gm_run *run, const char *skip,
                        gm_buf *b);
/* The same in Markdown: the variant as a code span, the parameters as
 * escaped text: "`stride` (stride\=8)". */
void gm_runs_case_md(const gm_run *const *set, size_t n, const gm_run *run, const char *skip,
                     gm_buf *b);
/* The point the group was compared at: the parameters every run of the group
 * shares with one value, e.g. "n=16777216" (nothing when none).  Unescaped. */
void gm_section_group_label(const gm_section *s, gm_buf *b);

/* The sweep of a section: passed runs with a numeric value of the swept
 * parameter, grouped into lines (same variant and same value of every other
 * parameter), each line sorted by the swept value; and the passed runs that
 * lack the parameter (drawn as constant lines, at most 4). */
typedef struct {
    const gm_run **runs;
    size_t n;
} gm_sweep_line;

typedef struct {
    const char *param;
    gm_sweep_line *lines;     /* at most GM_MAX_SWEEP_LINES; the rest are dropped */
    size_t n_lines;
    const gm_run **runs;      /* every run on a line */
    size_t n_runs;
    const gm_run **flat;
    size_t n_flat;
} gm_sweep_plan;

#define GM_MAX_SWEEP_LINES 16

void gm_section_sweep(const gm_section *s, gm_sweep_plan *out);
void gm_sweep_plan_free(gm_sweep_plan *p);

/* Same useful work: equal bytes read, bytes written and flops, of the same
 * kind (absent equals absent).  The one test of "same work" the report makes:
 * the comparison group is built with it, and findings compare a run with its
 * peers by it. */
bool gm_runs_same_work(const gm_run *a, const gm_run *b);
/* A total order of runs by their work: 0 exactly when gm_runs_same_work, so
 * that runs sorted by it stand in parts of the same work. */
int gm_runs_work_cmp(const gm_run *a, const gm_run *b);

/* Passed: check passed, or there is nothing to check (no-reference: a
 * program's own kernels, measured as they ran).  Failed/error runs are
 * excluded from every comparison, chart and speed claim. */
bool gm_run_passed(const gm_run *run);
double gm_run_median_ms(const gm_run *run);        /* NaN when no timing */
/* A kernel of a program (gpumem-report -- PROGRAM): check no-reference.  Its
 * runs are different kernels, not layouts of one computation: the report
 * gives their share of the time and does not call one a better layout. */
bool gm_run_is_program(const gm_run *run);
/* The run's GPU time over all its launches: the sum of its timing samples
 * (ms); NaN when it has none.  A program's grouped run has one sample per launch. */
double gm_run_total_ms(const gm_run *run);
/* How many launches a run's values stand for: a program's grouped run has one
 * timing sample per launch (its counts are means per launch, results.h);
 * 1 elsewhere. */
double gm_run_launches(const gm_run *run);
/* Effective DRAM bandwidth, GB/s: DRAM bytes read + written per launch over
 * the time per launch (a program's: its GPU time over its launches; the
 * suite's: the median); NaN when a part is missing. */
double gm_run_dram_gbs(const gm_run *run);
/* All runs of the section are a program's kernels.  gm_sections_build orders
 * such a section's runs by GPU time over all launches, largest first. */
bool gm_section_is_program(const gm_section *s);
/* Shared-memory wavefronts per shared instruction (ld: 1 is ideal); NaN when absent. */
double gm_run_shared_wpi(const gm_run *run, bool store);

/* The address-trace model's figures (gm_run.prediction, model.h): sectors per
 * global load (store=false) or store request, from the predicted counts (else
 * the predicted ratio), and shared wavefronts per instruction; NaN when the
 * run has no such prediction. */
bool gm_run_has_prediction(const gm_run *run);
/* Its prediction is the tracer's count of its own launch (a program's,
 * GM_SL_PREDICTION_METHOD), not the suite's model on the CPU. */
bool gm_run_gpu_traced(const gm_run *run);
double gm_run_predicted(const gm_run *run, const char *metric);   /* one predicted metric */
double gm_run_predicted_spr(const gm_run *run, bool store);
double gm_run_predicted_shared_wpi(const gm_run *run, bool store);

/* The ceiling bandwidths are compared with: the best measured.  It starts
 * from the attainable bandwidth (the best plain copy or read kernel, measured
 * at startup) when the file has it, else the cudaMemcpy copy bandwidth (files
 * written before the attainable one existed), and a passed run that went
 * faster raises it: its effective bandwidth (useful bytes over the median
 * time) or its DRAM bandwidth (DRAM bytes over the time, unless above the
 * theoretical bandwidth: then counters and time do not match), whichever is
 * higher.  So no "% of attainable" exceeds 100.  NaN when nothing was
 * measured.  *attainable (may be NULL) says whether the startup figure was
 * the attainable one. */
double gm_results_ceiling_gbs(const gm_results *r, bool *attainable);

/* The same, with where it comes from. */
typedef struct {
    double gbs;              /* the ceiling; NaN when none */
    double startup_gbs;      /* the attainable (or copy) bandwidth measured at startup; NaN */
    bool attainable;         /* startup_gbs is the attainable bandwidth, not the copy's */
    const gm_run *raised_by; /* the passed run above startup_gbs, NULL when none is */
    bool by_dram;            /* raised_by's DRAM bandwidth (else its effective bandwidth) */
} gm_ceiling;
void gm_results_ceiling(const gm_results *r, gm_ceiling *out);
/* Its name in a sentence: "the attainable bandwidth" or "the copy bandwidth". */
const char *gm_results_ceiling_name(const gm_results *r);

/* The runs measured in part (gm_run.not_replayed: a program's collectives,
 * CUDA graphs timed whole): n of them, largest GPU time first (borrowed
 * from r), their GPU time over all launches (ms, those with one), every
 * run's, and how many have no duration (had not finished at the program's
 * exit). */
typedef struct {
    const gm_run **runs;
    size_t n, n_untimed;
    double ms, all_ms;
} gm_uncounted;
void gm_runs_uncounted(const gm_results *r, gm_uncounted *out);
void gm_uncounted_free(gm_uncounted *u);
/* The report's line about them, at its top: which kernels were not fully
 * counted, their share of the GPU time, and why (a Markdown block quote and
 * a blank line); nothing when every run was counted in full. */
void gm_runs_uncounted_md(gm_buf *b, const gm_results *r);

#endif

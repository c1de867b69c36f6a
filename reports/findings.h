/* findings.h — what the numbers say, in sentences: rules that fire on the
 * measured (and predicted) counters of each run, like a profiler's guided
 * analysis, and paragraphs that explain each experiment from its numbers.
 *
 * Everything here is a pure function of a gm_results: the same file gives the
 * same findings and the same bytes of text, whatever the locale, the time or
 * the machine.  Every number in a sentence is read or computed from the
 * results and carries its unit; a sentence that needs an absent value is not
 * written.  Every name taken from the results (variants, parameters, reasons,
 * notes) is escaped for Markdown (escape.h): identifiers as code spans, the
 * rest as text.  docs/findings.md lists the rules, their thresholds and why.
 *
 * Behind this header: findings.c (the rule table, ranking and the Markdown
 * list) with the rules' bodies by family in findings_check.c,
 * findings_access.c and findings_dram.c (findings_rules.h), and explain.c
 * (the explanations); what the rules and the explanations read of a run is in
 * findings_internal.h (findings_util.c).
 *
 * How the renderer uses it (render_md.c, once per report):
 *
 *     gm_findings f;
 *     gm_findings_build(results, &f);
 *     after the summary: the 10 costliest, one per layout and rule, leaving out
 *     the validation rule (failed runs have a warning of their own at the top):
 *         gm_findings_md_except(&f, NULL, 10, true, GM_RULE_BIT(GM_RULE_VALIDATION), &b);
 *     for each experiment section (runs.h: gm_sections), after its charts:
 *         gm_explain_section(results, section, &b);        the one explanation
 *         gm_findings_md_except(&f, exp->id, 0, true, validation and not-run, &b);
 *     gm_findings_free(&f);
 *
 * The explanation compares the section's comparison group (runs.h: the one
 * rule of which runs compare), so the text, the tables and the charts speak
 * of the same runs.  Numbers are formatted by fmt.h, as in the tables.
 *
 * gm_findings_md and gm_explain_experiment append Markdown blocks (a bullet
 * list; paragraphs), each ending with a blank line, so they can go between
 * any two blocks of a Markdown document; the HTML page gets them through the
 * same Markdown.
 */
#ifndef GM_FINDINGS_H
#define GM_FINDINGS_H

#include "../core/buf.h"
#include "runs.h"
#include "../core/gm_error.h"
#include "../core/results.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- thresholds -------------------------------------------------------------
 * Each is a ratio or a percentage the rules compare with; docs/findings.md
 * gives the same reasoning at more length. */

/* Uncoalesced access: at least this fraction of the sectors a request fetches
 * carry no byte the threads asked for.  Below 10 % the excess is what edges
 * give (a partial last warp, one misaligned start); one extra sector on a
 * 4-sector request (a misaligned warp) is 20 %, and fires. */
#define GM_FIND_SECTOR_EXCESS 0.10

/* Bank conflicts: wavefronts per shared instruction at least 10 % above the
 * ideal.  NVIDIA's conflict counter is not exactly zero for conflict-free code
 * (a fraction of a percent in practice); a real 2-way conflict is +100 %. */
#define GM_FIND_WAVEFRONT_EXCESS 0.10

/* DRAM moving bytes nobody reads: DRAM reads (or writes) at least 1.5 times
 * the bytes the computation must read (or write).  A streaming kernel whose
 * data is read once stays within a few percent of 1.0 (partial sectors at the
 * edges); half as much again means sectors are fetched for few of their
 * bytes, or the same data is fetched from DRAM more than once. */
#define GM_FIND_DRAM_OVERFETCH 1.5

/* Over-fetch by the bytes the threads ask for (padding): the bytes the
 * threads' global loads ask for (their sectors' bytes times the measured
 * efficiency) are GM_FIND_DRAM_OVERFETCH times what the computation must read
 * or more, at least half of DRAM's excess, and DRAM reads at least this
 * fraction of them.  Then each byte asked for comes from DRAM about once: the
 * threads read bytes the computation does not use (an ELLPACK matrix's padded
 * slots, or data read again where the caches do not keep it), where wasted
 * sectors would show as bytes asked for near what must be read.  The finding
 * calls it padding where the run's layout or notes say it pads. */
#define GM_FIND_PADDING_DELIVERED 0.8

/* L2 absorbing excess sectors: DRAM reads at most 10 % more than the bytes the
 * computation must read although the L1 fetched GM_FIND_SECTOR_EXCESS more
 * sectors: the extra sectors were found in L2 (a neighbouring warp had them
 * brought in), not read twice from DRAM. */
#define GM_FIND_L2_ABSORB_DRAM 1.10

/* "Little or no extra time": within 10 % of the fastest run doing the same
 * work.  Timing spread between repeated runs of one kernel is a few percent. */
#define GM_FIND_TIME_CLOSE 1.10

/* Low DRAM utilisation in a bandwidth-bound experiment: DRAM below 50 % of its
 * peak AND the useful bytes moving at under half the copy bandwidth measured on
 * the same device.  A streaming kernel with enough bytes in flight reaches
 * 80-90 % of the copy bandwidth; under half is far from it, and a DRAM that is
 * also under half busy is not what limits it. */
#define GM_FIND_DRAM_LOW_PCT 50.0
#define GM_FIND_BW_LOW_FRACTION 0.50

/* Bound by something other than memory: DRAM under 30 % busy, no excess
 * sectors or wavefronts (by the thresholds above), and the useful bytes moving
 * at under a quarter of the copy bandwidth: the time would allow four times
 * the traffic, so traffic is not what takes it. */
#define GM_FIND_DRAM_IDLE_PCT 30.0
#define GM_FIND_BW_SLOW_FRACTION 0.25

/* A run much smaller than the copy-bandwidth measurement: the bytes it moves
 * are under 1/8 of the copy's buffer.  Said as a fact next to a low-bandwidth
 * finding, because a short kernel has too few bytes in flight to hide the
 * ramp-up of the launch. */
#define GM_FIND_SMALL_FRACTION 0.125

/* Constant-memory serialisation: at least 1.5 distinct addresses per warp
 * load on average (1.0 is a perfect broadcast; 1.5 means half the loads need
 * an extra pass of the constant cache). */
#define GM_FIND_CONST_SERIAL 1.5

/* Model vs measurement on a deterministic count (sectors, requests,
 * instructions, wavefronts): a difference above 2 % of the prediction when
 * every warp was traced (the model is exact there; the counters are exact
 * counts), above 5 % when a sample was traced and scaled (edge warps and
 * data-dependent indices make the scaled count an estimate).  Differences of
 * less than 1 count never fire. */
#define GM_FIND_MODEL_TOL 0.02
#define GM_FIND_MODEL_TOL_SCALED 0.05

/* The slower of two layouts "follows" a counter when its time ratio is within
 * a factor 1.25 of that counter's ratio (explanations only). */
#define GM_FIND_FOLLOWS 1.25

/* What a finding's excess costs (docs/findings.md, "Weighed by cost"): the
 * time the kernel would save if the excess sectors, wavefronts or bytes were
 * not moved, estimated as time x excess / total on the unit that moves them
 * (the kernel moving its traffic at the rate it did), never more than the
 * excess takes at the device's DRAM bandwidth (every unit on the path is at
 * least as fast), and never so much that the DRAM bytes the kernel would
 * still move would need more than the device's theoretical DRAM bandwidth
 * in the time left.  A finding with an estimate is a warning only when the
 * saving is at least GM_FIND_SAVE_MIN_SHARE of the GPU time (the program's,
 * for a program's kernel; the run's own, in the suite) and at least
 * GM_FIND_SAVE_MIN_MS; below, it is information, and the report's top list
 * leaves it out (it stays in its experiment's section): a saving of 1 µs or
 * 1 % is under what the run-to-run spread of a kernel's time hides. */
#define GM_FIND_SAVE_MIN_SHARE 0.01
#define GM_FIND_SAVE_MIN_MS 0.001

/* Bank conflicts per request: where the ideal wavefronts per executed
 * shared instruction are under 0.95 (for accesses of 4 bytes or less, one
 * wavefront per request), some instructions ran with every thread predicated
 * off and made no request; the finding then counts per request made. */
#define GM_FIND_PREDICATED 0.95

/* Explanations describe at most this many runs of an experiment one by one
 * (the fastest, the slowest, the baseline, then one per other layout). */
#define GM_EXPLAIN_MAX_RUNS 6

/* ---- findings ------------------------------------------------------------- */

typedef enum {
    GM_SEV_INFO = 0,      /* context: why a number is what it is, no action needed */
    GM_SEV_WARNING = 1,   /* a measurable loss, or a disagreement to look into */
    GM_SEV_PROBLEM = 2    /* the run's numbers cannot be trusted (check failed, error) */
} gm_severity;

typedef enum {
    GM_RULE_VALIDATION = 0,       /* check failed or error: "validation" */
    GM_RULE_NOT_RUN,              /* "not-run" */
    GM_RULE_UNCOALESCED_LOAD,     /* "uncoalesced-load" */
    GM_RULE_UNCOALESCED_STORE,    /* "uncoalesced-store" */
    GM_RULE_BANK_CONFLICT_LOAD,   /* "bank-conflict-load" */
    GM_RULE_BANK_CONFLICT_STORE,  /* "bank-conflict-store" */
    GM_RULE_DRAM_OVERFETCH,       /* "dram-overfetch" */
    GM_RULE_L2_ABSORBS,           /* "l2-absorbs" */
    GM_RULE_DRAM_UNDERUSED,       /* "dram-underused" */
    GM_RULE_NOT_MEMORY_BOUND,     /* "not-memory-bound" */
    GM_RULE_CONSTANT_SERIAL,      /* "constant-serialised" */
    GM_RULE_MODEL_MISMATCH,       /* "model-mismatch" */
    GM_RULE_COUNT
} gm_rule;

const char *gm_rule_id(gm_rule rule);          /* stable id, e.g. "uncoalesced-load" */
const char *gm_rule_title(gm_rule rule);       /* "Uncoalesced global loads" */
const char *gm_severity_name(gm_severity s);   /* "info", "warning", "problem" */

typedef struct {
    gm_rule rule;
    gm_severity severity;
    const gm_run *run;        /* borrowed from the results */
    size_t run_index;         /* index in results->runs */
    const char *experiment;   /* borrowed: run->experiment */
    const char *variant;      /* borrowed: run->variant (may be NULL) */
    char *params;             /* owned, plain text (NOT escaped): the run's parameters that
                                 vary within its experiment, "n=4096, stride=8"; "" if none */
    /* What ranks it, in bytes: the bytes the rule says were wasted or forgone
     * (unused bytes of fetched sectors, excess DRAM bytes, excess wavefronts
     * x 128 B, bytes the copy bandwidth could have moved in the time lost).
     * 0 when the rule has no cost (validation, not-run, info about caches). */
    double cost;
    double lost_ms;           /* time lost against the fastest run doing the same work; NaN
                                 when not known or when this run is the fastest */
    /* The estimated saving (GM_FIND_SAVE_MIN_SHARE above): ms over all the
     * run's launches, and its share (0..1) of the GPU time it is weighed
     * against; NaN when the rule has no estimate. */
    double saved_ms, saved_share;
    char *message;            /* owned: a few sentences of Markdown, escaped, on one line,
                                 starting with the run's variant and parameters */
    char *fix;                /* owned: what to change, one sentence of Markdown, starting
                                 in lower case ("make consecutive threads ..."); the list
                                 writes it last, after "What to change: " */
    /* The saving is under GM_FIND_SAVE_MIN_SHARE or GM_FIND_SAVE_MIN_MS:
     * the top list (all experiments, leads only) leaves the finding out. */
    bool minor;
    /* A program's kernel at several launch configurations: one finding per
     * kernel, NVTX range and rule, whose saving and cost are the sums over
     * the configurations (the run is the one that saves most; the message
     * lists the others); 1 otherwise. */
    size_t configs;
    /* Findings of the same experiment, variant and rule (a sweep fires the
     * same rule at many sizes): how many there are, and whether this one is
     * the first of them in rank order (the one to show when showing one). */
    size_t similar;
    bool lead;
} gm_finding;

typedef struct {
    gm_finding *v;            /* ranked: severity (problem first), then the estimated saving
                                 (largest first), then cost (largest first), then the order
                                 of the runs in the file, then rule */
    size_t n;
} gm_findings;

/* Run every rule on every run of r.  *out is overwritten (it need not be
 * initialised) and owns its strings; r must outlive it (runs and names are
 * borrowed).  Runs whose check failed or stopped with an error get only a
 * validation finding: no other rule reads their numbers, and no comparison
 * of another run uses them. */
void gm_findings_build(const gm_results *r, gm_findings *out);
void gm_findings_free(gm_findings *f);   /* zeroes it; a zeroed one is fine */

/* The findings of one experiment (by id), in rank order: an array of
 * pointers into f that the caller frees (free(list.v)); n may be 0. */
typedef struct {
    const gm_finding **v;
    size_t n;
} gm_finding_list;

gm_finding_list gm_findings_for_experiment(const gm_findings *f, const char *experiment_id);

/* Append findings as a Markdown bullet list (one item per finding, then a
 * blank line); nothing at all when none is selected.
 *   experiment_id  only that experiment's; NULL: all, each item naming its
 *                  experiment
 *   max            at most this many items; 0: no limit
 *   leads_only     one item per (experiment, variant, rule), the costliest,
 *                  saying on how many more runs the same rule fired; with
 *                  experiment_id NULL (the report's top list), minor findings
 *                  are left out
 * An item reads "- **Warning** (uncoalesced-load): <message> What to change:
 * <fix>", with "in `<experiment id>`, " before the message when
 * experiment_id is NULL. */
size_t gm_findings_md(const gm_findings *f, const char *experiment_id, size_t max,
                      bool leads_only, gm_buf *out);

/* A set of rules, one bit each: GM_RULE_BIT(GM_RULE_VALIDATION) | ... */
#define GM_RULE_BIT(rule) (1u << (unsigned)(rule))

/* gm_findings_md leaving out the rules in skip_rules (the report lists runs
 * that failed or did not run in places of their own).  Returns how many
 * items it wrote. */
size_t gm_findings_md_except(const gm_findings *f, const char *experiment_id, size_t max,
                             bool leads_only, unsigned skip_rules, gm_buf *out);

/* How many items gm_findings_md_except would write with no maximum. */
size_t gm_findings_count(const gm_findings *f, const char *experiment_id, bool leads_only,
                         unsigned skip_rules);

/* The findings the top list (experiment_id NULL, leads only) leaves out
 * because their saving is minor, not counting skip_rules. */
size_t gm_findings_count_minor(const gm_findings *f, unsigned skip_rules);

/* The model-mismatch rule's test on one run, for a report that shows the
 * prediction beside the measurement: NONE when the run has no prediction or
 * no count has both figures, AGREES when every count both have is within the
 * tolerance, DIFFERS otherwise (then the run has a model-mismatch finding).
 * *tolerance (may be NULL): the fraction used, GM_FIND_MODEL_TOL or
 * GM_FIND_MODEL_TOL_SCALED. */
typedef enum { GM_MODEL_NONE = 0, GM_MODEL_AGREES, GM_MODEL_DIFFERS } gm_model_verdict;
gm_model_verdict gm_model_check(const gm_run *run, double *tolerance);

/* ---- explanations ----------------------------------------------------------- */

/* Append the explanation of one experiment as Markdown paragraphs (each ending
 * with a blank line): what a warp touches in each layout of the comparison
 * group (the passed runs that do the same work, as the report compares them),
 * the sectors and useful fraction that costs, the DRAM traffic and time that
 * follow, why the fastest wins or why it wins by less than the counters
 * suggest (with the address-trace model's figure beside the measured one when
 * the run has a prediction), how each line of a sweep moves along the swept
 * parameter, and how many runs the comparison leaves out (runs that failed
 * or did not run are counted, not described: the report flags them beside
 * the table).  Nothing is appended when the experiment has no run.  GM_ERR_VALUE when neither an experiment nor a run
 * has that id (err filled when non-NULL). */
gm_status gm_explain_experiment(const gm_results *r, const char *experiment_id,
                                gm_buf *out_markdown, gm_error *err);

/* The same for a section the caller has built (runs.h), as the report does:
 * its comparison group is the one compared.  Nothing when it has no run. */
void gm_explain_section(const gm_results *r, const gm_section *s, gm_buf *out_markdown);

#ifdef __cplusplus
}
#endif

#endif

/* findings_rules.h — what the rules share with the table that runs them:
 * private to findings.c and the files that hold the rules' bodies, one family
 * each, under the one public header findings.h (as diff_int.h serves the
 * diff's files).  explain.c does not include it.
 *
 *   findings.c         the context (each run's label, peers, experiment), the
 *                      saving a change would give and the sentence that says
 *                      it, adding a finding; the rule table (S_rules[]),
 *                      building, naming the line, one finding per kernel,
 *                      ranking, folding, the Markdown list
 *   findings_check.c   validation, not-run, model-mismatch (and gm_model_check):
 *                      the run's check and the address-trace model
 *   findings_access.c  uncoalesced-load and -store, bank-conflict-load and
 *                      -store, constant-serialised: how a warp's accesses use
 *                      the sectors, banks and constant cache they touch
 *   findings_dram.c    dram-overfetch, l2-absorbs, not-memory-bound,
 *                      dram-underused: what DRAM moves, and how fast
 *
 * A rule is one function here, gm_find_rule_<name>(c, run), that adds its
 * finding with gm_find_add or gm_find_add_saving, and one row of S_rules[].
 */
#ifndef GM_FINDINGS_RULES_H
#define GM_FINDINGS_RULES_H

#include "findings_internal.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- the context (findings.c) ------------------------------------------------ */

typedef struct {
    const gm_results *r;
    double copy_gbs;            /* the measured ceiling (runs.h: gm_results_ceiling_gbs),
                                   NaN if unknown */
    bool attainable;            /* copy_gbs is the attainable bandwidth (else the copy's) */
    double ceiling_gbs;         /* copy_gbs, else the theoretical bandwidth; NaN if neither */
    char **params;              /* per run: parameters varying within its experiment */
    const gm_run **peer;        /* per run: its fastest peer (gm_find_fastest_peer) */
    double *weigh;              /* per run: what its saving is weighed against
                                   (findings.c: S_weigh_ms) */
    size_t *exp_of;             /* per run: its experiment's number (gm_find_streq on the ids) */
    size_t *members, *exp_start;/* runs of experiment e in file order:
                                   members[exp_start[e] .. exp_start[e + 1]) */
    gm_findings *out;
    size_t cap;
} gm_find_ctx;

/* The bytes the computation must read and write. */
double gm_find_need(const gm_run *run);

/* run's index in c->r->runs */
size_t gm_find_index(const gm_results *r, const gm_run *run);

/* `variant` (the parameters that vary within its experiment), escaped, in a
 * buffer of its own for GM_BUF (core/say.h); the caller frees it. */
gm_buf gm_find_label(const gm_find_ctx *c, const gm_run *run);

/* The fastest passed run doing the same work as run (possibly run itself);
 * NULL when run has no time or is a program's kernel. */
const gm_run *gm_find_fastest_peer(const gm_find_ctx *c, const gm_run *run);

/* The experiment of that id; NULL for none. */
const gm_experiment *gm_find_exp(const gm_results *r, const char *id);

/* ---- a saving and a finding (findings.c) -------------------------------------- */

typedef struct {
    double ms, share;   /* over all the run's launches; NaN when unknown */
    /* The cap of the device's theoretical DRAM bandwidth (gm_find_estimate): */
    bool capped;        /* the time x excess / total estimate was more than it allows */
    double wanted_ms;   /* that estimate, over all launches */
    double keep;        /* DRAM bytes per launch the kernel would still move */
    double t;           /* ms per launch */
    double floor_ms;    /* keep at the theoretical bandwidth, per launch */
    double need_gbs;    /* what the estimate would need; infinite when it is the whole time */
    double peak_gbs;    /* the theoretical bandwidth */
} gm_find_saving;

/* What not moving excess of total units (excess_bytes of them in bytes)
 * would save, capped by the device's theoretical DRAM bandwidth given the
 * DRAM bytes per launch the change would spare (dram_removed; NaN: no cap). */
gm_find_saving gm_find_estimate(const gm_find_ctx *c, const gm_run *run, double excess,
                                double total, double excess_bytes, double dram_removed);

/* Is a saving under the floor of a warning (findings.h)? */
bool gm_find_minor(double ms, double share);

/* " (28.4% of the program's profiled GPU time)": share of what the run's
 * saving is weighed against; nothing when share is NaN. */
void gm_find_share_text(gm_buf *b, const gm_run *run, double share);

/* "Not moving the excess <what> would save about ..." (and why where capped);
 * returns the severity the saving gives. */
gm_severity gm_find_saving_text(gm_buf *b, const gm_run *run, gm_find_saving sv,
                                const char *what);

/* Adds a finding with the message msg (taken) and what to change (fix, one
 * sentence); lost_ms: the time lost against the fastest peer, NaN if none. */
void gm_find_add(gm_find_ctx *c, gm_rule rule, gm_severity sev, const gm_run *run, double cost,
                 double lost_ms, const char *fix, gm_buf *msg);
void gm_find_add_saving(gm_find_ctx *c, gm_rule rule, gm_severity sev, const gm_run *run,
                        double cost, double lost_ms, gm_find_saving sv, const char *fix,
                        gm_buf *msg);

/* "It takes 229.6 µs, 4.6× the 50.0 µs of `float4`, ..." where run is slower
 * than its fastest peer by GM_FIND_TIME_CLOSE; returns the time lost against
 * it (NaN: run is the fastest, or has no peer). */
double gm_find_vs_fastest(gm_buf *b, const gm_find_ctx *c, const gm_run *run);

/* ---- the rules: findings_check.c ----------------------------------------------- */

void gm_find_rule_validation(gm_find_ctx *c, const gm_run *run);
void gm_find_rule_not_run(gm_find_ctx *c, const gm_run *run);
void gm_find_rule_model(gm_find_ctx *c, const gm_run *run);

/* ---- the rules: findings_access.c ---------------------------------------------- */

void gm_find_rule_uncoalesced_load(gm_find_ctx *c, const gm_run *run);
void gm_find_rule_uncoalesced_store(gm_find_ctx *c, const gm_run *run);
void gm_find_rule_banks_load(gm_find_ctx *c, const gm_run *run);
void gm_find_rule_banks_store(gm_find_ctx *c, const gm_run *run);
void gm_find_rule_constant(gm_find_ctx *c, const gm_run *run);

/* ---- the rules: findings_dram.c ------------------------------------------------ */

void gm_find_rule_overfetch(gm_find_ctx *c, const gm_run *run);
void gm_find_rule_l2(gm_find_ctx *c, const gm_run *run);
void gm_find_rule_not_memory_bound(gm_find_ctx *c, const gm_run *run);
void gm_find_rule_dram_underused(gm_find_ctx *c, const gm_run *run);

#endif

/* findings.c — rules on the numbers of each run, ranked and folded into the
 * findings of a report (findings.h; docs/findings.md).  The rules' bodies are
 * in findings_check.c, findings_access.c and findings_dram.c, by family; what
 * they share with this file is findings_rules.h.  The explanations of each
 * experiment are in explain.c; what both read of a run is in
 * findings_internal.h (findings_util.c).
 *
 * Layout: reading a run (what only the rules read), the context (the runs of
 * each experiment, labels, peers), what the rules share (a saving, adding a
 * finding), the rule table, ranking, the Markdown list.
 */
#include "findings_rules.h"
#include "srclines.h"

#include "../core/catalog.h"
#include "runs.h"
#include "../core/escape.h"
#include "../core/fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading a run ----------------------------------------------------------- */

double gm_find_need(const gm_run *run)
{
    return gm_value_num(&run->bytes_read) + gm_value_num(&run->bytes_written);
}

/* Peers: runs of the same experiment doing the same useful work (runs.h),
 * whose times compare directly. */
static bool S_same_work(const gm_run *a, const gm_run *b)
{
    return gm_find_streq(a->experiment, b->experiment) && gm_runs_same_work(a, b);
}

/* ---- context: the runs of each experiment, labels, peers ---------------------- */

size_t gm_find_index(const gm_results *r, const gm_run *run) { return (size_t)(run - r->runs); }

gm_buf gm_find_label(const gm_find_ctx *c, const gm_run *run)
{
    const char *params = c->params[gm_find_index(c->r, run)];
    gm_buf b = GM_BUF_INIT;
    if (params && *params)
        gm_say(&b, "{} ({})", GM_CODE(run->variant), GM_TEXT(params));
    else
        gm_say(&b, "{}", GM_CODE(run->variant));
    return b;
}

/* The fastest passed run doing the same work as `run` (possibly run itself);
 * NULL when run has no time.  Ties go to the first in the file.  Found for
 * every run at once (S_peers_build). */
const gm_run *gm_find_fastest_peer(const gm_find_ctx *c, const gm_run *run)
{
    if (!isfinite(gm_find_time_of(run)) || gm_run_is_program(run))
        return NULL;   /* a program's kernels do different work: never compared */
    return c->peer[gm_find_index(c->r, run)];
}

/* Order of experiment ids as gm_find_streq sees them: absent first. */
static int S_id_cmp(const char *a, const char *b)
{
    if (!a || !b)
        return a ? 1 : b ? -1 : 0;
    return strcmp(a, b);
}

typedef struct {
    const gm_run *run;
    size_t i;   /* its index in the file */
} S_numbered;

static int S_by_exp_work(const void *pa, const void *pb)
{
    const S_numbered *a = pa, *b = pb;
    int c = S_id_cmp(a->run->experiment, b->run->experiment);
    if (!c)
        c = gm_runs_work_cmp(a->run, b->run);
    return c ? c : a->i < b->i ? -1 : a->i > b->i;
}

/* Each run's fastest peer and experiment, each program experiment's GPU time,
 * from the runs sorted by experiment and work (n log n where asking every run
 * about every other is n^2): runs of one experiment doing the same work
 * stand together, in file order. */
static void S_peers_build(gm_find_ctx *c)
{
    const gm_results *r = c->r;
    size_t n = r->n_runs;
    S_numbered *ord = gm_xmalloc((n ? n : 1) * sizeof *ord);
    for (size_t i = 0; i < n; i++)
        ord[i] = (S_numbered){&r->runs[i], i};
    qsort(ord, n, sizeof *ord, S_by_exp_work);
    c->peer = gm_xcalloc(n ? n : 1, sizeof *c->peer);
    c->exp_of = gm_xcalloc(n ? n : 1, sizeof *c->exp_of);
    size_t n_exp = 0;
    for (size_t i = 0, j; i < n; i = j) {
        const gm_run *a = ord[i].run;
        if (i && gm_find_streq(ord[i - 1].run->experiment, a->experiment))
            n_exp--;   /* the same experiment as the part before */
        for (j = i + 1; j < n && S_same_work(ord[j].run, a); j++)
            ;
        const gm_run *best = NULL;
        for (size_t k = i; k < j; k++) {
            const gm_run *x = ord[k].run;
            c->exp_of[ord[k].i] = n_exp;
            if (!gm_run_passed(x) || !isfinite(gm_find_time_of(x)) || !S_same_work(x, x))
                continue;
            if (!best || gm_find_time_of(x) < gm_find_time_of(best))
                best = x;
        }
        for (size_t k = i; k < j; k++)
            c->peer[ord[k].i] = S_same_work(ord[k].run, ord[k].run) ? best : NULL;
        n_exp++;
    }
    /* the runs of each experiment in file order, and a program's GPU time */
    c->exp_start = gm_xcalloc(n_exp + 2, sizeof *c->exp_start);
    c->members = gm_xmalloc((n ? n : 1) * sizeof *c->members);
    double *all = gm_xcalloc(n_exp + 1, sizeof *all);
    for (size_t i = 0; i < n; i++)
        c->exp_start[c->exp_of[i] + 2]++;
    for (size_t e = 2; e < n_exp + 2; e++)
        c->exp_start[e] += c->exp_start[e - 1];
    for (size_t i = 0; i < n; i++) {
        const gm_run *x = &r->runs[i];
        c->members[c->exp_start[c->exp_of[i] + 1]++] = i;
        double t = gm_run_total_ms(x);
        if (gm_run_is_program(x) && isfinite(t))
            all[c->exp_of[i]] += t;
    }
    c->weigh = gm_xmalloc((n ? n : 1) * sizeof *c->weigh);
    for (size_t i = 0; i < n; i++)
        c->weigh[i] = all[c->exp_of[i]] > 0 ? all[c->exp_of[i]] : NAN;
    free(all);
    free(ord);
}

/* A run is named by the parameters that vary among its experiment's runs:
 * c->params, one string per run ("" when none vary). */
static void S_params_build(gm_find_ctx *c)
{
    const gm_results *r = c->r;
    c->params = gm_xcalloc(r->n_runs ? r->n_runs : 1, sizeof *c->params);
    gm_sections ss;
    gm_sections_build(r, &ss);
    for (size_t i = 0; i < ss.n; i++) {
        const gm_section *s = &ss.v[i];
        for (size_t k = 0; k < s->n_runs; k++) {
            gm_buf b = GM_BUF_INIT;
            gm_buf_puts(&b, "");
            gm_vary_params(&s->vary, s->runs[k], NULL, &b);
            c->params[gm_find_index(r, s->runs[k])] = gm_buf_detach(&b);
        }
    }
    gm_sections_free(&ss);
}

/* Frees what S_params_build and S_peers_build made (not the findings). */
static void S_ctx_free(gm_find_ctx *c)
{
    for (size_t i = 0; i < c->r->n_runs; i++)
        free(c->params[i]);
    free(c->params);
    free((void *)c->peer);
    free(c->weigh);
    free(c->exp_of);
    free(c->members);
    free(c->exp_start);
}

const gm_experiment *gm_find_exp(const gm_results *r, const char *id)
{
    return id ? gm_results_experiment(r, id) : NULL;
}

/* ---- what the rules share: a saving, adding a finding ---------------------------- */

/* The GPU time a run's saving is weighed against: for a program's kernel,
 * every profiled launch of its experiment; in the suite, the run's own time. */
static double S_weigh_ms(const gm_find_ctx *c, const gm_run *run)
{
    if (!gm_run_is_program(run))
        return gm_find_time_of(run);
    return c->weigh[gm_find_index(c->r, run)];
}

/* Launches a run's values stand for: a program's grouped run, one per timing
 * sample; else 1. */
static double S_launches(const gm_run *run)
{
    return gm_run_is_program(run) && run->timing.n > 0 ? (double)run->timing.n : 1.0;
}

static const gm_find_saving S_NO_SAVING = {NAN, NAN, false, NAN, NAN, NAN, NAN, NAN, NAN};

/* The model (findings.h): per launch, min(time x excess / total, excess bytes
 * at the ceiling bandwidth), and never more than leaves the time the DRAM
 * bytes the kernel would still move (its DRAM bytes less dram_removed) take
 * at the device's theoretical bandwidth; over all the run's launches.
 * dram_removed: the DRAM bytes per launch not moving the excess would spare
 * (NaN: the kernel's DRAM bytes are unknown, no cap). */
gm_find_saving gm_find_estimate(const gm_find_ctx *c, const gm_run *run, double excess,
                                double total, double excess_bytes, double dram_removed)
{
    gm_find_saving sv = S_NO_SAVING;
    double t = gm_find_time_of(run);
    if (gm_run_is_program(run)) {   /* the mean launch: values are per launch */
        double tt = gm_run_total_ms(run);
        t = isfinite(tt) && tt > 0 ? tt / S_launches(run) : NAN;
    }
    if (!isfinite(t) || !(total > 0) || !(excess >= 0))
        return sv;
    double ms = t * fmin(1.0, excess / total);
    if (isfinite(c->ceiling_gbs) && c->ceiling_gbs > 0 && excess_bytes >= 0)
        ms = fmin(ms, excess_bytes / (c->ceiling_gbs * 1e6));   /* GB/s -> bytes per ms */
    double rd = gm_find_m(run, GM_M_DRAM_RD), wr = gm_find_m(run, GM_M_DRAM_WR);
    double peak = gm_value_num(&c->r->device.theoretical_bandwidth_gbs);
    if (rd >= 0 && wr >= 0 && peak > 0 && dram_removed >= 0) {
        double keep = fmax(0.0, rd + wr - dram_removed);
        double floor_ms = keep / (peak * 1e6);
        double cap = fmax(0.0, t - floor_ms);
        if (ms > cap) {
            sv.capped = true;
            sv.wanted_ms = ms * S_launches(run);
            sv.keep = keep;
            sv.t = t;
            sv.floor_ms = floor_ms;
            sv.need_gbs = t - ms > 0 ? keep / ((t - ms) * 1e6) : INFINITY;
            sv.peak_gbs = peak;
            ms = cap;
        }
    }
    sv.ms = ms * S_launches(run);
    double w = S_weigh_ms(c, run);
    sv.share = w > 0 ? sv.ms / w : NAN;
    return sv;
}

/* Is a saving under the floor of a warning (findings.h)? */
bool gm_find_minor(double ms, double share)
{
    return !(ms >= GM_FIND_SAVE_MIN_MS && isfinite(share) && share >= GM_FIND_SAVE_MIN_SHARE);
}

/* " (28.4% of the program's profiled GPU time)" */
void gm_find_share_text(gm_buf *b, const gm_run *run, double share)
{
    if (!isfinite(share))
        return;
    gm_say_arg of = GM_LIT(gm_run_is_program(run) ? "the program's profiled GPU time" : "its time");
    if (share > 0 && share < 0.0005)   /* what would print as 0.0% */
        gm_say(b, " (under 0.1% of {})", of);
    else
        gm_say(b, " ({} of {})", GM_PCT(100.0 * share), of);
}

/* "Not moving the excess would save about 18.5 µs (28.4% of the program's GPU
 * time)." and, where the device's theoretical DRAM bandwidth caps it, why.
 * Returns the severity the estimate gives. */
gm_severity gm_find_saving_text(gm_buf *b, const gm_run *run, gm_find_saving sv,
                                const char *what)
{
    if (!isfinite(sv.ms))
        return GM_SEV_WARNING;
    bool launches = gm_run_is_program(run) && run->timing.n > 1;
    gm_say_arg subject = GM_LIT(launches ? "a launch" : "it");
    if (sv.capped && !(sv.ms > 0)) {
        gm_say(b, "Not moving the excess {} would save no time: {} would still move {} through "
                  "DRAM, which takes its whole {} even at the device's theoretical DRAM "
                  "bandwidth ({}). ",
               GM_LIT(what), subject, GM_BYTES(sv.keep), GM_MS(sv.t), GM_GBS(sv.peak_gbs));
        return GM_SEV_INFO;
    }
    gm_say(b, "Not moving the excess {} would save about {}", GM_LIT(what), GM_MS(sv.ms));
    gm_find_share_text(b, run, sv.share);
    gm_buf_puts(b, launches ? " over its launches. " : ". ");
    if (sv.capped)
        gm_say(b, launches ? "That is capped by the device's theoretical DRAM bandwidth: {} would "
                             "still move {} through DRAM, {} of the {} a launch takes on average, "
                             "at {}; the {} that the excess's share of the traffic suggests would "
                             "need {}. "
                           : "That is capped by the device's theoretical DRAM bandwidth: {} would "
                             "still move {} through DRAM, {} of its {} at {}; the {} that the "
                             "excess's share of the traffic suggests would need {}. ",
               subject, GM_BYTES(sv.keep), GM_MS(sv.floor_ms), GM_MS(sv.t), GM_GBS(sv.peak_gbs),
               GM_MS(sv.wanted_ms),
               isfinite(sv.need_gbs) ? GM_GBS(sv.need_gbs) : GM_LIT("it in no time at all"));
    return gm_find_minor(sv.ms, sv.share) ? GM_SEV_INFO : GM_SEV_WARNING;
}

void gm_find_add(gm_find_ctx *c, gm_rule rule, gm_severity sev, const gm_run *run, double cost,
                 double lost_ms, const char *fix, gm_buf *msg)
{
    gm_find_add_saving(c, rule, sev, run, cost, lost_ms, S_NO_SAVING, fix, msg);
}

void gm_find_add_saving(gm_find_ctx *c, gm_rule rule, gm_severity sev, const gm_run *run,
                        double cost, double lost_ms, gm_find_saving sv, const char *fix,
                        gm_buf *msg)
{
    gm_findings *f = c->out;
    if (f->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 32;
        f->v = gm_xrealloc(f->v, c->cap * sizeof *f->v);
    }
    size_t i = gm_find_index(c->r, run);
    gm_finding *x = &f->v[f->n++];
    memset(x, 0, sizeof *x);
    x->rule = rule;
    x->severity = sev;
    x->run = run;
    x->run_index = i;
    x->experiment = run->experiment;
    x->variant = run->variant;
    x->params = gm_xstrdup(c->params[i]);
    x->cost = isfinite(cost) && cost > 0 ? cost : 0.0;
    x->lost_ms = lost_ms;
    x->saved_ms = sv.ms;
    x->saved_share = sv.share;
    x->minor = isfinite(sv.ms) && gm_find_minor(sv.ms, sv.share);
    x->fix = gm_xstrdup(fix);
    x->configs = 1;
    while (msg->len && msg->data[msg->len - 1] == ' ')
        msg->data[--msg->len] = '\0';
    gm_buf_puts(msg, "");
    x->message = gm_buf_detach(msg);
}

/* "It takes 229.6 µs, 4.6× the 50.0 µs of `float4`, the fastest run doing the
 * same work. "  Only when it is slower than that by GM_FIND_TIME_CLOSE. */
double gm_find_vs_fastest(gm_buf *b, const gm_find_ctx *c, const gm_run *run)
{
    const gm_run *p = gm_find_fastest_peer(c, run);
    if (!p || p == run)
        return NAN;
    double t = gm_find_time_of(run), tp = gm_find_time_of(p);
    if (t >= tp * GM_FIND_TIME_CLOSE) {
        gm_buf peer = gm_find_label(c, p);
        gm_say(b, gm_run_is_program(run) ? "It takes {}, {} the {} of {}, the fastest kernel "
                                           "profiled in the program. "
                                         : "It takes {}, {} the {} of {}, the fastest run doing "
                                           "the same work. ",
               GM_MS(t), GM_RATIO(t / tp), GM_MS(tp), GM_BUF(&peer));
        gm_buf_free(&peer);
    }
    return t - tp;
}

/* ---- the rule table ------------------------------------------------------------ */

/* Which runs a rule reads, by their check.  A run whose check failed or that
 * stopped with an error gets only a validation finding: no other rule reads
 * its numbers, and no comparison of another run uses them (S_peers_build
 * leaves it out).  A run that did not run has no numbers. */
typedef enum {
    S_ON_NUMBERS = 0,   /* passed, or measured with no reference */
    S_ON_FAILED,        /* failed its check or stopped with an error */
    S_ON_NOT_RUN
} S_on;

static S_on S_reads(const gm_run *run)
{
    switch (run->check.status) {
    case GM_CHECK_FAILED:
    case GM_CHECK_ERROR:
        return S_ON_FAILED;
    case GM_CHECK_NOT_RUN:
        return S_ON_NOT_RUN;
    case GM_CHECK_PASSED:
    case GM_CHECK_NO_REFERENCE:
        break;
    }
    return S_ON_NUMBERS;
}

/* Every rule, one row each: its stable id and title (gm_rule_id,
 * gm_rule_title), the runs it reads, and the function that adds its finding
 * to a run when it fires.  gm_findings_build tries the rows in this order on
 * every run; the order of the findings is their rank, not this order. */
static const struct {
    const char *id, *title;
    S_on on;
    void (*fire)(gm_find_ctx *c, const gm_run *run);
} S_rules[GM_RULE_COUNT] = {
    [GM_RULE_VALIDATION] = {"validation", "Output check failed", S_ON_FAILED,
                            gm_find_rule_validation},
    [GM_RULE_NOT_RUN] = {"not-run", "Not run at this size", S_ON_NOT_RUN, gm_find_rule_not_run},
    [GM_RULE_UNCOALESCED_LOAD] = {"uncoalesced-load", "Uncoalesced global loads", S_ON_NUMBERS,
                                  gm_find_rule_uncoalesced_load},
    [GM_RULE_UNCOALESCED_STORE] = {"uncoalesced-store", "Uncoalesced global stores", S_ON_NUMBERS,
                                   gm_find_rule_uncoalesced_store},
    [GM_RULE_BANK_CONFLICT_LOAD] = {"bank-conflict-load", "Shared-memory bank conflicts on loads",
                                    S_ON_NUMBERS, gm_find_rule_banks_load},
    [GM_RULE_BANK_CONFLICT_STORE] = {"bank-conflict-store",
                                     "Shared-memory bank conflicts on stores", S_ON_NUMBERS,
                                     gm_find_rule_banks_store},
    [GM_RULE_DRAM_OVERFETCH] = {"dram-overfetch", "DRAM moves bytes nobody asked for",
                                S_ON_NUMBERS, gm_find_rule_overfetch},
    [GM_RULE_L2_ABSORBS] = {"l2-absorbs", "L2 absorbs the excess sectors", S_ON_NUMBERS,
                            gm_find_rule_l2},
    [GM_RULE_DRAM_UNDERUSED] = {"dram-underused", "Low DRAM utilisation", S_ON_NUMBERS,
                                gm_find_rule_dram_underused},
    [GM_RULE_NOT_MEMORY_BOUND] = {"not-memory-bound", "Bound by something other than memory",
                                  S_ON_NUMBERS, gm_find_rule_not_memory_bound},
    [GM_RULE_CONSTANT_SERIAL] = {"constant-serialised", "Constant-memory reads serialised",
                                 S_ON_NUMBERS, gm_find_rule_constant},
    [GM_RULE_MODEL_MISMATCH] = {"model-mismatch", "Model and measurement disagree", S_ON_NUMBERS,
                                gm_find_rule_model},
};

const char *gm_rule_id(gm_rule rule)
{
    return (unsigned)rule < GM_RULE_COUNT ? S_rules[rule].id : "unknown";
}

const char *gm_rule_title(gm_rule rule)
{
    return (unsigned)rule < GM_RULE_COUNT ? S_rules[rule].title : "Unknown rule";
}

const char *gm_severity_name(gm_severity s)
{
    switch (s) {
    case GM_SEV_INFO:
        return "info";
    case GM_SEV_WARNING:
        return "warning";
    case GM_SEV_PROBLEM:
        return "problem";
    }
    return "unknown";
}

/* ---- ranking ---------------------------------------------------------------- */

static int S_rank_cmp(const void *pa, const void *pb)
{
    const gm_finding *a = pa, *b = pb;
    if (a->severity != b->severity)
        return a->severity > b->severity ? -1 : 1;
    double sa = isfinite(a->saved_ms) ? a->saved_ms : -1, sb = isfinite(b->saved_ms) ? b->saved_ms : -1;
    if (sa != sb)
        return sa > sb ? -1 : 1;
    if (a->cost != b->cost)
        return a->cost > b->cost ? -1 : 1;
    if (a->run_index != b->run_index)
        return a->run_index < b->run_index ? -1 : 1;
    return (int)a->rule - (int)b->rule;
}

static bool S_same_group(const gm_finding *a, const gm_finding *b)
{
    return a->rule == b->rule && gm_find_streq(a->experiment, b->experiment) &&
           gm_find_streq(a->variant, b->variant);
}

/* Pointers into one array of ranked findings: rule, experiment, variant (0
 * exactly when S_same_group), then rank. */
static int S_group_cmp(const void *pa, const void *pb)
{
    gm_finding *const *pa_ = pa, *const *pb_ = pb;
    const gm_finding *a = *pa_, *b = *pb_;
    if (a->rule != b->rule)
        return a->rule < b->rule ? -1 : 1;
    int c = S_id_cmp(a->experiment, b->experiment);
    if (!c)
        c = S_id_cmp(a->variant, b->variant);
    return c ? c : a < b ? -1 : a > b;
}

/* Groups of the same rule, experiment and variant (a sweep fires the same
 * rule at many sizes): each finding learns its group's size, and the first
 * in rank order is the group's lead.  out is ranked. */
static void S_fold(gm_findings *out)
{
    /* sorted by rule, experiment, variant, then rank, each group stands
     * together with its lead first */
    gm_finding **ord = gm_xmalloc((out->n ? out->n : 1) * sizeof *ord);
    for (size_t i = 0; i < out->n; i++)
        ord[i] = &out->v[i];
    qsort(ord, out->n, sizeof *ord, S_group_cmp);
    for (size_t i = 0, j; i < out->n; i = j) {
        for (j = i + 1; j < out->n && S_same_group(ord[i], ord[j]); j++)
            ;
        for (size_t k = i; k < j; k++) {
            ord[k]->similar = j - i;
            ord[k]->lead = k == i;
        }
    }
    free(ord);
}

/* A program run's launch configuration, as its row names it: "1024x1x1/64x1x1". */
static void S_config(gm_buf *b, const gm_run *run)
{
    if (run->has_launch)
        gm_buf_printf(b, "%ux%ux%u/%ux%ux%u", run->launch.grid[0], run->launch.grid[1],
                      run->launch.grid[2], run->launch.block[0], run->launch.block[1],
                      run->launch.block[2]);
    else
        gm_find_code(b, run->variant);
}

/* The run whose per-line counters speak for x: its own; else, for a program,
 * a run of the same kernel in the same NVTX range (the per-line pass counts
 * one launch of each kernel: another range's launch of it may walk other
 * data, as PyTorch's copy kernel does for a transpose and for a gather); else
 * one of the same layout (the suite measures one case of each). */
static const gm_run *S_lines_run(const gm_results *r, const gm_finding *x)
{
    if (x->run && x->run->source_lines.present)
        return x->run;
    if (x->run && gm_run_is_program(x->run) && x->run->kernel)
        for (size_t i = 0; i < r->n_runs; i++) {
            const gm_run *o = &r->runs[i];
            if (o->source_lines.present && o->kernel &&
                gm_find_streq(o->experiment, x->experiment) &&
                strcmp(o->kernel, x->run->kernel) == 0 &&
                gm_find_streq(gm_run_nvtx_range(o), gm_run_nvtx_range(x->run)))
                return o;
        }
    return gm_srclines_run_of(r, x->experiment, x->variant);
}

/* A finding about uncoalesced accesses or bank conflicts names the line that
 * causes it when its layout has per-source-line counters (issue 14): the
 * line with the largest excess, and its share of the excess of all the lines
 * of that kind of access (issue 26: a warning named an instruction holding
 * 1.3 % of it, as a share of all sectors). */
static void S_name_lines(const gm_results *r, gm_findings *out)
{
    for (size_t i = 0; i < out->n; i++) {
        gm_finding *x = &out->v[i];
        const char *op;
        bool shared;
        switch (x->rule) {
        case GM_RULE_UNCOALESCED_LOAD: op = "LDG"; shared = false; break;
        case GM_RULE_UNCOALESCED_STORE: op = "STG"; shared = false; break;
        case GM_RULE_BANK_CONFLICT_LOAD: op = "LDS"; shared = true; break;
        case GM_RULE_BANK_CONFLICT_STORE: op = "STS"; shared = true; break;
        default: continue;
        }
        const gm_run *run = S_lines_run(r, x);
        if (!run || !run->source_lines.status ||
            strcmp(run->source_lines.status, "collected") != 0)
            continue;
        const gm_srclines *sl = &run->source_lines;
        const gm_srcline *top = gm_srclines_top(sl, shared, op);
        if (!top)
            continue;
        long long excess = shared ? gm_srcline_excess_wavefronts(top)
                                  : gm_srcline_excess_sectors(top);
        /* the excess of every line of this kind of access, and how many */
        size_t holders = 0;
        long long all = gm_srclines_excess_of(sl, shared, op, &holders);
        bool mine = run == x->run || (run->kernel && x->run && x->run->kernel &&
                                      strcmp(run->kernel, x->run->kernel) == 0 &&
                                      gm_run_is_program(run));
        const char *unit = sl->line_info ? "line" : "instruction";
        gm_buf cite = GM_BUF_INIT;
        gm_srcline_cite_md(&cite, top);
        gm_buf b = GM_BUF_INIT;
        gm_buf_puts(&b, x->message ? x->message : "");
        if (!mine) {
            gm_say(&b, " The {}: {} (per-line counters of another case of this layout).",
                   GM_LIT(unit), GM_BUF(&cite));
            gm_buf_free(&cite);
            free(x->message);
            x->message = gm_buf_detach(&b);
            continue;
        }
        gm_say(&b, shared ? " The {}: {} ({} excess wavefronts" : " The {}: {} ({} excess sectors",
               GM_LIT(unit), GM_BUF(&cite), GM_COUNT((double)excess));
        gm_buf_free(&cite);
        bool loads = x->rule == GM_RULE_UNCOALESCED_LOAD || x->rule == GM_RULE_BANK_CONFLICT_LOAD;
        if (all > 0)
            gm_say(&b, ", {} of the excess of its {} {}",
                   GM_PCT(100.0 * (double)excess / (double)all),
                   GM_LIT(shared ? "shared" : "global"), GM_LIT(loads ? "loads" : "stores"));
        if (run != x->run && run->has_launch) {   /* another configuration's launch */
            gm_buf config = GM_BUF_INIT;
            S_config(&config, run);
            gm_say(&b, ", in one launch of {})", GM_BUF(&config));
            gm_buf_free(&config);
        } else {
            gm_buf_puts(&b, ", in one launch)");
        }
        if (holders > 1 && 2 * excess < all)
            gm_say(&b, "; the rest is spread over {} more {}{}", GM_COUNT((double)(holders - 1)),
                   GM_LIT(unit), GM_LIT(holders - 1 == 1 ? "" : "s"));
        gm_buf_puts(&b, ".");
        free(x->message);
        x->message = gm_buf_detach(&b);
    }
}

/* ---- one finding per kernel across its launch configurations --------------------- */

/* Findings of one kernel, range and rule of a program (its launch
 * configurations are different runs). */
static bool S_same_kernel(const gm_finding *a, const gm_finding *b)
{
    return a->rule == b->rule && a->run && b->run && gm_run_is_program(a->run) &&
           gm_run_is_program(b->run) && a->run->kernel && b->run->kernel &&
           gm_find_streq(a->experiment, b->experiment) &&
           strcmp(a->run->kernel, b->run->kernel) == 0 &&
           gm_find_streq(gm_run_nvtx_range(a->run), gm_run_nvtx_range(b->run));
}

/* Which of two findings leads a kernel's group: the larger saving, then the
 * larger cost, then the first in the file. */
static bool S_leads(const gm_finding *a, const gm_finding *b)
{
    double sa = isfinite(a->saved_ms) ? a->saved_ms : -1, sb = isfinite(b->saved_ms) ? b->saved_ms : -1;
    if (sa != sb)
        return sa > sb;
    if (a->cost != b->cost)
        return a->cost > b->cost;
    return a->run_index < b->run_index;
}

static void S_finding_free(gm_finding *x)
{
    free(x->params);
    free(x->message);
    free(x->fix);
}

/* A program's kernel launched at several configurations (five block sizes)
 * gave one finding per configuration, the same words five times (issue 26):
 * one finding per kernel, range and rule, led by the configuration that
 * saves most, saying where else the rule fires and what all of them would
 * save together. */
static void S_merge_configs(gm_findings *out)
{
    bool *gone = gm_xcalloc(out->n ? out->n : 1, sizeof *gone);
    for (size_t i = 0; i < out->n; i++) {
        if (gone[i])
            continue;
        size_t lead = i, n = 1;
        for (size_t j = i + 1; j < out->n; j++)
            if (!gone[j] && S_same_kernel(&out->v[i], &out->v[j])) {
                n++;
                if (S_leads(&out->v[j], &out->v[lead]))
                    lead = j;
            }
        if (n == 1)
            continue;
        gm_finding *x = &out->v[lead];
        double ms = 0, share = 0, cost = 0;
        bool all_ms = true;
        gm_severity sev = GM_SEV_INFO;
        gm_buf others = GM_BUF_INIT;
        gm_buf_puts(&others, "");
        size_t k = 0;
        for (size_t j = i; j < out->n; j++) {
            gm_finding *y = &out->v[j];
            if (gone[j] || (j != i && !S_same_kernel(&out->v[i], y)))
                continue;
            all_ms &= isfinite(y->saved_ms);
            ms += isfinite(y->saved_ms) ? y->saved_ms : 0.0;
            share += isfinite(y->saved_share) ? y->saved_share : 0.0;
            cost += y->cost;
            if (y->severity > sev)
                sev = y->severity;
            if (y == x)
                continue;
            gm_buf_puts(&others, k++ ? ", " : "");
            S_config(&others, y->run);
        }
        gm_buf b = GM_BUF_INIT;
        gm_buf_puts(&b, x->message);
        gm_say(&b, " The same rule fires on its {} other launch configuration{} ({})",
               GM_INT((long long)(n - 1)), GM_LIT(n - 1 == 1 ? "" : "s"), GM_BUF(&others));
        if (all_ms) {
            gm_say(&b, "; over all {}, not moving the excess would save about {}",
                   GM_INT((long long)n), GM_MS(ms));
            gm_find_share_text(&b, x->run, share);
            x->saved_ms = ms;
            x->saved_share = share;
            x->minor = gm_find_minor(ms, share);
            sev = x->minor ? GM_SEV_INFO : GM_SEV_WARNING;
        }
        gm_buf_puts(&b, ".");
        gm_buf_free(&others);
        free(x->message);
        x->message = gm_buf_detach(&b);
        x->cost = cost;
        x->severity = sev;
        x->configs = n;
        for (size_t j = i; j < out->n; j++)
            if (j != lead && !gone[j] && (j == i || S_same_kernel(&out->v[i], &out->v[j])))
                gone[j] = true;
    }
    size_t kept = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (gone[i]) {
            S_finding_free(&out->v[i]);
            continue;
        }
        out->v[kept++] = out->v[i];
    }
    out->n = kept;
    free(gone);
}

/* ---- building the findings ------------------------------------------------------- */

void gm_findings_build(const gm_results *r, gm_findings *out)
{
    memset(out, 0, sizeof *out);
    bool attainable = false;
    double copy = gm_results_ceiling_gbs(r, &attainable);
    double theo = gm_value_num(&r->device.theoretical_bandwidth_gbs);
    gm_find_ctx c = {r, copy, attainable, copy > 0 ? copy : theo > 0 ? theo : NAN, NULL, NULL,
                     NULL, NULL, NULL, NULL, out, 0};
    S_params_build(&c);
    S_peers_build(&c);
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_run *run = &r->runs[i];
        S_on on = S_reads(run);
        for (size_t k = 0; k < GM_RULE_COUNT; k++)
            if (S_rules[k].on == on)
                S_rules[k].fire(&c, run);
    }
    S_ctx_free(&c);

    S_name_lines(r, out);
    S_merge_configs(out);
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, S_rank_cmp);
    S_fold(out);
}

void gm_findings_free(gm_findings *f)
{
    for (size_t i = 0; i < f->n; i++)
        S_finding_free(&f->v[i]);
    free(f->v);
    memset(f, 0, sizeof *f);
}

gm_finding_list gm_findings_for_experiment(const gm_findings *f, const char *experiment_id)
{
    gm_finding_list l = {NULL, 0};
    for (size_t i = 0; i < f->n; i++) {
        if (!gm_find_streq(f->v[i].experiment, experiment_id))
            continue;
        l.v = gm_xrealloc(l.v, (l.n + 1) * sizeof *l.v);
        l.v[l.n++] = &f->v[i];
    }
    return l;
}

/* ---- the Markdown list ------------------------------------------------------------ */

size_t gm_findings_md(const gm_findings *f, const char *experiment_id, size_t max,
                      bool leads_only, gm_buf *out)
{
    return gm_findings_md_except(f, experiment_id, max, leads_only, 0u, out);
}

/* Would the list show x? */
static bool S_selected(const gm_finding *x, const char *experiment_id, bool leads_only,
                       unsigned skip_rules)
{
    return (!experiment_id || gm_find_streq(x->experiment, experiment_id)) &&
           (!leads_only || x->lead) && !(skip_rules & GM_RULE_BIT(x->rule)) &&
           !(!experiment_id && leads_only && x->minor);
}

size_t gm_findings_count_minor(const gm_findings *f, unsigned skip_rules)
{
    size_t n = 0;
    for (size_t i = 0; i < f->n; i++)
        n += f->v[i].minor && f->v[i].lead && !(skip_rules & GM_RULE_BIT(f->v[i].rule));
    return n;
}

size_t gm_findings_count(const gm_findings *f, const char *experiment_id, bool leads_only,
                         unsigned skip_rules)
{
    size_t n = 0;
    for (size_t i = 0; i < f->n; i++)
        n += S_selected(&f->v[i], experiment_id, leads_only, skip_rules);
    return n;
}

size_t gm_findings_md_except(const gm_findings *f, const char *experiment_id, size_t max,
                             bool leads_only, unsigned skip_rules, gm_buf *out)
{
    size_t shown = 0;
    for (size_t i = 0; i < f->n && (!max || shown < max); i++) {
        const gm_finding *x = &f->v[i];
        if (!S_selected(x, experiment_id, leads_only, skip_rules))
            continue;
        static const char *const sev[] = {"Info", "Warning", "Problem"};
        gm_say(out, "- **{}** ({}): ", GM_LIT(sev[x->severity]), GM_LIT(gm_rule_id(x->rule)));
        if (!experiment_id)
            gm_say(out, "in {}, ", GM_CODE(x->experiment));
        gm_buf_puts(out, x->message);
        if (leads_only && x->similar > 1)
            gm_say(out, x->similar == 2 ? " The same rule fires on {} more run of {}."
                                        : " The same rule fires on {} more runs of {}.",
                   GM_COUNT((double)(x->similar - 1)), GM_CODE(x->variant));
        if (x->fix && *x->fix)
            gm_say(out, " What to change: {}", GM_LIT(x->fix));
        gm_buf_putc(out, '\n');
        shown++;
    }
    if (shown)
        gm_buf_putc(out, '\n');
    return shown;
}

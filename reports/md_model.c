/* md_model.c — what the address-trace model (core/model.h) predicted beside
 * what was measured, for the runs of an experiment that carry a prediction.
 */
#include "md_int.h"

#include "../core/catalog.h"
#include "../core/say.h"
#include "../core/srclines.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- predicted beside measured ------------------------------------------------- */

/* In the Markdown forms, the table lists this many runs where the model differs. */
#define S_MD_MODEL_ROWS 3

/* Every count the model predicts that was also measured is equal to the unit
 * (the prediction's counts are rounded when a sample was scaled up). */
static bool S_model_exact(const gm_run *run)
{
    static const char *const counts[] = {
        GM_M_LD_SECTORS, GM_M_LD_REQUESTS, GM_M_ST_SECTORS,  GM_M_ST_REQUESTS,
        GM_M_LD_INST,    GM_M_ST_INST,     GM_M_SH_LD_WAVES, GM_M_SH_ST_WAVES,
        GM_M_SH_LD_INST, GM_M_SH_ST_INST,
    };
    size_t compared = 0;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        double m = gm_run_metric_num(run, counts[i]);
        const gm_metric *p = gm_prediction_metric(&run->prediction, counts[i]);
        double q = p ? gm_value_num(&p->value) : NAN;
        if (!isfinite(m) || !isfinite(q))
            continue;
        if (llround(m) != llround(q))
            return false;
        compared++;
    }
    return compared > 0;
}

/* The quantities the model predicts per request or instruction. */
typedef struct {
    const char *label;
    double (*measured)(const gm_run *run);
    double (*predicted)(const gm_run *run);
    int decimals;
} S_pq;

static double S_m_ld_spr(const gm_run *r) { return gm_run_metric_num(r, GM_M_LD_SPR); }
static double S_m_st_spr(const gm_run *r) { return gm_run_metric_num(r, GM_M_ST_SPR); }
static double S_m_sh_ld(const gm_run *r) { return gm_run_shared_wpi(r, false); }
static double S_m_sh_st(const gm_run *r) { return gm_run_shared_wpi(r, true); }
static double S_p_ld_spr(const gm_run *r) { return gm_run_predicted_spr(r, false); }
static double S_p_st_spr(const gm_run *r) { return gm_run_predicted_spr(r, true); }
static double S_p_sh_ld(const gm_run *r) { return gm_run_predicted_shared_wpi(r, false); }
static double S_p_sh_st(const gm_run *r) { return gm_run_predicted_shared_wpi(r, true); }

/* "4,096 of 524,288" (a sample, scaled) / "all 131,072" */
static void S_traced(gm_buf *b, const gm_prediction *p)
{
    if (p->method && strcmp(p->method, GM_SL_PREDICTION_METHOD) == 0) {
        gm_buf_puts(b, "all, on the GPU");
    } else if (p->warps_total <= 0) {
        gm_buf_puts(b, DASH);
    } else if (p->warps_traced >= p->warps_total && !p->scaled) {
        gm_say(b, "all {}", GM_COUNT((double)p->warps_total));
    } else {
        gm_say(b, "{} of {}", GM_COUNT((double)p->warps_traced), GM_COUNT((double)p->warps_total));
    }
}

/* What the address-trace model predicted beside what was measured, for the
 * passed runs that carry a prediction: per request or instruction, as the
 * table above gives them, and whether the model's counts agree (the test of
 * the model-mismatch finding). */
void md_predicted(gm_buf *b, const gm_section *s, bool html)
{
    const S_pq all[] = {
        {md_label(GM_M_LD_SPR, "ld sectors/req"), S_m_ld_spr, S_p_ld_spr, 1},
        {md_label(GM_M_ST_SPR, "st sectors/req"), S_m_st_spr, S_p_st_spr, 1},
        {"sh ld wavefronts/inst", S_m_sh_ld, S_p_sh_ld, 2},
        {"sh st wavefronts/inst", S_m_sh_st, S_p_sh_st, 2},
    };
    const gm_run **runs = gm_xcalloc(s->n_runs + 1, sizeof *runs);
    size_t n = 0;
    for (size_t i = 0; i < s->n_runs; i++)
        if (gm_run_passed(s->runs[i]) && gm_run_has_prediction(s->runs[i]))
            runs[n++] = s->runs[i];
    bool show[4] = {false, false, false, false}, any = false;
    for (size_t k = 0; k < 4; k++) {
        for (size_t i = 0; i < n && !show[k]; i++)
            show[k] = isfinite(all[k].measured(runs[i])) && isfinite(all[k].predicted(runs[i]));
        any |= show[k];
    }
    if (!any) {
        free((void *)runs);
        return;
    }
    /* the runs whose counts the model predicts exactly say nothing the table
     * above does not: they are counted, the others tabled */
    size_t exact = 0, close = 0, m = 0;
    double tol = 0;
    for (size_t i = 0; i < n; i++) {
        double t;
        gm_model_verdict v = gm_model_check(runs[i], &t);
        if (v == GM_MODEL_AGREES && S_model_exact(runs[i])) {
            exact++;
        } else if (v == GM_MODEL_AGREES) {
            close++;
            tol = t;
        } else {
            runs[m++] = runs[i];
        }
    }
    if (html)
        gm_buf_puts(b, "The address-trace model (docs/model.md) replays each warp's addresses on "
                       "the CPU and counts what the profiler counts. ");
    else
        gm_buf_puts(b, "**Address-trace model** (docs/model.md): ");
    gm_say_arg the_all = GM_LIT(n == 1 ? "the" : "all"), runs_s = GM_LIT(n == 1 ? "" : "s");
    if (exact == n && !html) {
        gm_say(b, "exact for {} {} run{} with a prediction (sectors, requests, wavefronts).\n\n",
               the_all, GM_INT((long long)n), runs_s);
    } else if (exact == n) {
        gm_say(b, "For {} {} run{} with a prediction, its sectors, requests and shared-memory "
                  "wavefronts equal the counters exactly.\n\n",
               the_all, GM_INT((long long)n), runs_s);
    } else if (close == n) {
        gm_say(b, "{} {} {} run{} with a prediction, its sectors, requests and shared-memory "
                  "wavefronts agree with the counters within {}.\n\n",
               GM_LIT(html ? "For" : "for"), the_all, GM_INT((long long)n), runs_s,
               GM_PCT(100.0 * tol));
    } else {
        gm_say(b, "{} the {} runs with a prediction, ", GM_LIT(html ? "Of" : "of"),
               GM_INT((long long)n));
        if (exact)
            gm_say(b, "{} match{} the counters exactly", GM_INT((long long)exact),
                   GM_LIT(exact == 1 ? "es" : ""));
        if (close)
            gm_say(b, "{}{} agree{} with them within {}", GM_LIT(exact ? ", " : ""),
                   GM_INT((long long)close), GM_LIT(close == 1 ? "s" : ""), GM_PCT(100.0 * tol));
        if (m)
            gm_say(b, "{}{} differ{}:", GM_LIT(exact || close ? " and " : ""), GM_INT((long long)m),
                   GM_LIT(m == 1 ? "s" : ""));
        gm_buf_puts(b, m ? "\n\n" : ".\n\n");
    }
    n = m;
    if (!n) {
        free((void *)runs);
        return;
    }
    for (size_t k = 0; k < 4; k++) {
        show[k] = false;
        for (size_t i = 0; i < n && !show[k]; i++)
            show[k] = isfinite(all[k].measured(runs[i])) && isfinite(all[k].predicted(runs[i]));
    }
    gm_buf_puts(b, "*Each cell reads measured / predicted; where a sample of the warps was "
                   "traced, its counts are scaled to all of them.*\n\n");
    bool params = false;
    for (size_t i = 0; i < n && !params; i++) {
        gm_buf p = GM_BUF_INIT;
        gm_vary_params(&s->vary, runs[i], NULL, &p);
        params = p.len > 0;
        gm_buf_free(&p);
    }
    gm_buf_puts(b, "| Variant |");
    if (params)
        gm_buf_puts(b, " Parameters |");
    gm_buf_puts(b, " Warps traced |");
    for (size_t k = 0; k < 4; k++)
        if (show[k])
            gm_say(b, " {} |", GM_TEXT(all[k].label));
    gm_buf_puts(b, " Model against counters |\n|---|");
    if (params)
        gm_buf_puts(b, "---|");
    gm_buf_puts(b, "---|");
    for (size_t k = 0; k < 4; k++)
        if (show[k])
            gm_buf_puts(b, "---:|");
    gm_buf_puts(b, "---|\n");
    /* the Markdown forms: the first few; the HTML page: all */
    size_t all_n = n;
    if (!html && n > S_MD_MODEL_ROWS)
        n = S_MD_MODEL_ROWS;
    for (size_t i = 0; i < n; i++) {
        const gm_run *run = runs[i];
        gm_say(b, "| {} | ", GM_CODE(run->variant ? run->variant : ""));
        if (params) {
            md_params_cell(b, s, run);
            gm_buf_puts(b, " | ");
        }
        S_traced(b, &run->prediction);
        for (size_t k = 0; k < 4; k++) {
            if (!show[k])
                continue;
            gm_say(b, " | {} / {}", GM_FIXED(all[k].measured(run), all[k].decimals),
                   GM_FIXED(all[k].predicted(run), all[k].decimals));
        }
        gm_buf_puts(b, " | ");
        double tol;
        switch (gm_model_check(run, &tol)) {
        case GM_MODEL_AGREES:
            if (S_model_exact(run)) {
                gm_buf_puts(b, "exact");
            } else {
                gm_say(b, "agrees within {}", GM_PCT(100.0 * tol));
            }
            break;
        case GM_MODEL_DIFFERS:
            gm_say(b, "**differs** by more than {} (see the findings)", GM_PCT(100.0 * tol));
            break;
        case GM_MODEL_NONE:
            gm_buf_puts(b, "no count to compare");
            break;
        }
        gm_buf_puts(b, " |\n");
    }
    gm_buf_puts(b, "\n");
    if (all_n > n)
        gm_say(b, "{} more run{}: in the HTML report.\n\n", GM_INT((long long)(all_n - n)),
               GM_LIT(all_n - n == 1 ? "" : "s"));
    free((void *)runs);
}

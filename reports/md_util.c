/* md_util.c — what every part of the Markdown report shares (md_int.h):
 * escaping shorthands, the check of a run in words, a run's name and
 * parameters, and the folds the HTML page turns into <details>.
 */
#include "md_int.h"

#include "../core/catalog.h"
#include "../core/escape.h"
#include "../core/say.h"

#include <math.h>

/* ---- formatting ----------------------------------------------------------- */

void md_text(gm_buf *b, const char *s) { gm_esc_md(b, s ? s : ""); }
void md_code(gm_buf *b, const char *s) { gm_esc_md_code(b, s ? s : ""); }

void md_spr(gm_buf *b, double v) { gm_fmt_fixed(b, v, 1); }

/* 13000 -> "13.0", 12040 -> "12.4" (CUDA's 1000*major + 10*minor) */
void md_cuda_version(gm_buf *b, int v)
{
    if (v <= 0)
        gm_buf_puts(b, DASH);
    else
        gm_say(b, "{}.{}", GM_INT(v / 1000), GM_INT((v % 1000) / 10));
}

/* `variant` (name=value, ...) with the parameters varying across a set (its
 * section's runs or group: runs.h, gm_vary), escaped. */
void md_case(gm_buf *b, const gm_vary *v, const gm_run *run, const char *skip)
{
    gm_vary_case_md(v, run, skip, b);
}

/* `variant` of `experiment` (name=value, ...): one run named with all its
 * parameters, for a sentence outside its section. */
void md_run_named(gm_buf *b, const gm_run *run)
{
    if (run->experiment)
        gm_say(b, "{} of {}", GM_CODE(run->variant), GM_CODE(run->experiment));
    else
        md_code(b, run->variant);
    gm_buf p = GM_BUF_INIT;
    gm_buf_puts(&p, "");
    for (size_t i = 0; i < run->n_params; i++) {
        gm_buf_printf(&p, "%s%s=", i ? ", " : "", run->params[i].name ? run->params[i].name : "");
        gm_fmt_value(&p, &run->params[i].value);
    }
    if (p.len)
        gm_say(b, " ({})", GM_TEXT(p.data));
    gm_buf_free(&p);
}

const char *md_label(const char *metric, const char *fallback)
{
    const gm_metric_info *m = gm_catalog_find(metric);
    return m ? m->label : fallback;
}

bool md_failed(const gm_run *run)
{
    return run->check.status == GM_CHECK_FAILED || run->check.status == GM_CHECK_ERROR;
}

static void S_num17(gm_buf *b, double v)
{
    if (isnan(v))
        gm_buf_puts(b, "NaN");
    else if (isinf(v))
        gm_buf_puts(b, v > 0 ? "inf" : "-inf");
    else
        gm_fmt_value(b, &(gm_value){.kind = GM_V_REAL, .r = v});
}

/* The check of a run in words (escaped Markdown, one line). */
void md_check_text(gm_buf *b, const gm_run *run, bool loud)
{
    const gm_check *c = &run->check;
    switch (c->status) {
    case GM_CHECK_PASSED:
        gm_buf_puts(b, "passed");
        return;
    case GM_CHECK_FAILED:
        if (c->checked > 0)
            gm_say(b, "{}: {} of {} elements differ", GM_LIT(loud ? "**FAILED**" : "failed"),
                   GM_COUNT((double)c->mismatches), GM_COUNT((double)c->checked));
        else
            gm_buf_puts(b, loud ? "**FAILED**" : "failed");
        if (c->has_first_mismatch) {
            /* both values escaped as one text, as the checker's pair */
            gm_buf got = GM_BUF_INIT;
            S_num17(&got, c->first_value);
            gm_buf_puts(&got, ", expected ");
            S_num17(&got, c->first_expected);
            gm_say(b, ", first at index {}: got {}", GM_COUNT((double)c->first_index),
                   GM_TEXT(got.data));
            gm_buf_free(&got);
        } else if (c->reason) {
            /* the checker's own words when there is no first mismatch to show */
            gm_say(b, c->checked > 0 ? " ({})" : ": {}", GM_TEXT(c->reason));
        }
        return;
    case GM_CHECK_NOT_RUN:
        gm_say(b, "not run: {}", GM_TEXT(c->reason ? c->reason : "no reason given"));
        return;
    case GM_CHECK_ERROR:
        gm_say(b, loud ? "**ERROR**: {}" : "error: {}",
               GM_TEXT(c->reason ? c->reason : "no reason given"));
        return;
    case GM_CHECK_NO_REFERENCE:
        if (c->reason)
            gm_say(b, "no reference: {}", GM_TEXT(c->reason));
        else
            gm_buf_puts(b, "no reference");
        return;
    }
}

const char *md_exp_title(const gm_experiment *e)
{
    return e->title ? e->title : e->id ? e->id : "";
}

/* The parameters that tell a run from the others of its section, or "—". */
void md_params_cell(gm_buf *b, const gm_section *s, const gm_run *run)
{
    gm_buf p = GM_BUF_INIT;
    gm_vary_params(&s->vary, run, NULL, &p);
    if (p.len)
        md_text(b, p.data);
    else
        gm_buf_puts(b, DASH);
    gm_buf_free(&p);
}

/* ---- folds ----------------------------------------------------------------- */

/* A folded block: <details> in Markdown (GitHub shows it closed), a
 * placeholder paragraph the HTML page turns into <details> (raw HTML does not
 * pass cmark there).  Summaries are fixed texts, by number. */
static const char *const S_fold_summary[] = {
    "",
    "More counters of each run: memory efficiency, DRAM traffic, bank conflicts",
};

void md_fold_open(gm_buf *b, bool html, int which)
{
    if (html)
        gm_buf_printf(b, "![](gm-fold:%d)\n\n", which);
    else
        gm_buf_printf(b, "<details><summary>%s</summary>\n\n", S_fold_summary[which]);
}

/* The page's folds with a count in their summary (render_html.c's table):
 * 2 the explanation's run-by-run list, 3 a section's findings past the
 * first few, 4 each layout's hot lines in full, 5 every run of a large
 * experiment (under its pivot). */
void md_fold_open_n(gm_buf *b, int which, size_t count)
{
    gm_buf_printf(b, "![](gm-fold:%d:%zu)\n\n", which, count);
}

void md_fold_close(gm_buf *b, bool html)
{
    gm_buf_puts(b, html ? "![](gm-fold-end:0)\n\n" : "</details>\n\n");
}

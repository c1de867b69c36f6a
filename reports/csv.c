/* csv.c — a results file as CSV (csv.h). */
#include "csv.h"

#include "diff.h"

#include "../core/buf.h"
#include "../core/escape.h"
#include "../core/fmt.h"

#include <stdio.h>

static void S_line(gm_buf *b, const gm_results *r, const gm_run *run, const char *params,
                   const char *metric, const gm_value *v, const char *unit)
{
    gm_esc_csv(b, r->commit ? r->commit : "");
    gm_buf_putc(b, ',');
    gm_esc_csv(b, r->device.name ? r->device.name : "");
    gm_buf_putc(b, ',');
    gm_esc_csv(b, run->experiment ? run->experiment : "");
    gm_buf_putc(b, ',');
    gm_esc_csv(b, run->variant ? run->variant : "");
    gm_buf_putc(b, ',');
    gm_esc_csv(b, params);
    gm_buf_putc(b, ',');
    gm_esc_csv(b, gm_check_status_name(run->check.status));
    gm_buf_putc(b, ',');
    gm_esc_csv(b, metric);
    gm_buf_putc(b, ',');
    if (v->kind == GM_V_INT || v->kind == GM_V_REAL)
        gm_fmt_value(b, v);
    else if (v->kind == GM_V_STR)
        gm_esc_csv(b, v->s);
    gm_buf_putc(b, ',');
    gm_esc_csv(b, unit ? unit : "");
    gm_buf_puts(b, "\r\n");
}

/* The allocations the tracer saw the run's launch touch (source_lines):
 * metric "array.<i>.<key>", <i> their rank by excess sectors; nothing for
 * files without them. */
static void S_arrays(gm_buf *b, const gm_results *r, const gm_run *run, const char *params)
{
    const gm_srclines *sl = &run->source_lines;
    for (size_t i = 0; i < sl->n_allocs; i++) {
        const gm_sl_alloc *a = &sl->allocs[i];
        const struct { const char *key, *unit; long long v; } f[] = {
            {"size", "byte", a->size}, {"loads", "instruction", a->loads},
            {"stores", "instruction", a->stores}, {"bytes", "byte", a->bytes},
            {"sectors", "sector", a->sectors}, {"sectors_ideal", "sector", a->sectors_ideal}};
        char metric[64];
        snprintf(metric, sizeof metric, "array.%zu.name", i);
        gm_value name = gm_vabsent();   /* borrowed, not copied: nothing to free */
        if (a->name) {
            name.kind = GM_V_STR;
            name.s = a->name;
        }
        S_line(b, r, run, params, metric, &name, "");
        for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
            snprintf(metric, sizeof metric, "array.%zu.%s", i, f[k].key);
            gm_value v = f[k].v < 0 ? gm_vabsent() : gm_vint(f[k].v);
            S_line(b, r, run, params, metric, &v, f[k].unit);
        }
    }
}

char *gm_results_csv(const gm_results *r)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "commit,device,experiment,variant,params,check,metric,value,unit\r\n");
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_run *run = &r->runs[i];
        gm_buf pt = GM_BUF_INIT;
        gm_diff_params_text(&pt, run);
        const char *params = pt.data ? pt.data : "";
        gm_value t = run->timing.present ? gm_vreal(run->timing.median) : gm_vabsent();
        S_line(&b, r, run, params, "time", &t, "ms");
        gm_value n = run->timing.present ? gm_vint((long long)run->timing.n) : gm_vabsent();
        S_line(&b, r, run, params, "time_samples", &n, "");
        for (size_t k = 0; k < run->n_metrics; k++)
            S_line(&b, r, run, params, run->metrics[k].name ? run->metrics[k].name : "",
                   &run->metrics[k].value, run->metrics[k].unit);
        S_arrays(&b, r, run, params);
        gm_buf_free(&pt);
    }
    return gm_buf_detach(&b);
}

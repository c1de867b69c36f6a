/* gpumem-report render RUN.json --out report.html|report.md [--baseline BASE.json]
 *
 * Reads a results file (and a baseline to compare it with) and writes the
 * report.  The work is gm_render() (render_html.c); this file parses the
 * options and prints.  Exit status: 0 written, 1 written but a chart gnuplot
 * could not draw is a note in it (stderr names it), 2 bad arguments, bad input
 * (a baseline too), no gnuplot, gnuplot past its time limit, or an output that
 * cannot be written (nothing written).
 */
#include "cli.h"
#include "options.h"
#include "../reports/compare.h"
#include "../reports/csv.h"
#include "../reports/diff.h"
#include "../reports/render.h"
#include "../core/output.h"
#include "../core/results.h"
#include "../kernels/suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A results file written before experiments carried their question
 * (results.h: gm_experiment contrast_*): for each experiment of this build's
 * suite known by id, the question, the contrast and the source (document
 * titles rather than the ids older files used) come from the suite table, and
 * stderr says so.  Measurements are never touched. */
static void S_fill_questions(gm_results *r, const char *input)
{
    size_t filled = 0;
    for (size_t i = 0; i < r->n_experiments; i++) {
        gm_experiment *e = &r->experiments[i];
        const gm_experiment_def *d = e->id ? gm_experiment_find(e->id) : NULL;
        if (!d || e->contrast_a || !d->contrast_a)
            continue;
        e->question = gm_xstrdup(d->question);
        e->contrast_a = gm_xstrdup(d->contrast_a);
        e->contrast_b = gm_xstrdup(d->contrast_b);
        e->contrast_at = gm_xstrdup(d->contrast_at);
        e->contrast_counter = gm_xstrdup(d->contrast_counter);
        free(e->source);
        e->source = gm_xstrdup(d->source);
        filled++;
    }
    if (filled)
        fprintf(stderr,
                "render: %s predates the experiments' questions; the question, contrast and "
                "source of %zu experiment%s come from this build's suite\n",
                input, filled, filled == 1 ? "" : "s");
}

/* Several results files: the devices side by side. */
static int S_compare(const char *const *files, size_t n, gm_render_opts *o)
{
    if (o->baseline_name) {
        gm_cli_error("render: --baseline takes one results file, not a comparison");
        return GM_EXIT_USAGE;
    }
    /* the output may be none of them, whatever its path (output.h) */
    o->inputs = files;
    o->n_inputs = n;
    gm_results r[GM_COMPARE_MAX];
    const gm_results *rp[GM_COMPARE_MAX];
    gm_error err = {GM_OK, ""};
    size_t read = 0;
    int rc = GM_EXIT_OK;
    for (; read < n; read++) {
        if (gm_results_read_file(files[read], &r[read], &err) != GM_OK) {
            gm_cli_error("%s", err.message);
            rc = GM_EXIT_USAGE;
            break;
        }
        rp[read] = &r[read];
    }
    if (rc == GM_EXIT_OK) {
        gm_compare_in in = {rp, files, n};
        char *exe = gm_cli_exe_path();
        o->exe_path = exe;
        gm_status st = gm_compare_render(&in, o, &err);
        if (st == GM_ERR_INCOMPLETE) {
            gm_cli_error("render: the report %s is written, but incomplete: %s", o->out_path,
                         err.message);
            rc = GM_EXIT_FAIL;
        } else if (st != GM_OK) {
            gm_cli_error("render: %s", err.message);
            rc = GM_EXIT_USAGE;
        }
        free(exe);
    }
    for (size_t i = 0; i < read; i++)
        gm_results_free(&r[i]);
    return rc;
}

/* render RUN.json --format csv: the runs as CSV, to a file or ("-") stdout. */
static int S_csv(const char *input, const char *out)
{
    gm_results r;
    gm_error err = {0};
    if (gm_results_read_file(input, &r, &err) != GM_OK) {
        gm_cli_error("%s", err.message);
        return GM_EXIT_USAGE;
    }
    char *text = gm_results_csv(&r);
    int rc = GM_EXIT_OK;
    const char *inputs[] = {input};
    if (gm_output_write(out, text, strlen(text), inputs, 1, &err) != GM_OK) {
        gm_cli_error("render: %s", err.message);
        rc = GM_EXIT_USAGE;
    }
    free(text);
    gm_results_free(&r);
    return rc;
}

int gm_cmd_render(int argc, char **argv)
{
    gm_render_args a;
    memset(&a, 0, sizeof a);
    int p = gm_opt_parse(&gm_opts_render, 0, argc, argv, &a, NULL);
    if (p)
        return p == 1 ? GM_EXIT_OK : GM_EXIT_USAGE;
    gm_render_opts o = {0};
    bool csv = false;
    const char *const *inputs = a.inputs;
    size_t n_inputs = a.n_inputs;
    const char *input = n_inputs ? inputs[0] : NULL;
    o.out_path = a.out;
    if (a.format) {
        if (strcmp(a.format, "csv") == 0)
            csv = true;
        else
            o.format = strcmp(a.format, "md") == 0     ? GM_FORMAT_MD
                       : strcmp(a.format, "html") == 0 ? GM_FORMAT_HTML
                                                       : GM_FORMAT_GFM;
    }
    o.only = a.only;
    o.template_path = a.template_path;
    o.gnuplot = a.gnuplot;
    o.gnuplot_timeout = a.gnuplot_timeout;
    o.timestamp = a.timestamp;
    o.baseline_name = a.baseline;
    if (!input) {
        gm_cli_error("render: no results file given");
        gm_opt_help(stderr, &gm_opts_render, 0);
        return GM_EXIT_USAGE;
    }
    if (!o.out_path) {
        gm_cli_error("render: no output given: --out report.html or --out report.md");
        return GM_EXIT_USAGE;
    }

    if (gm_cli_out_is_dir("render", o.out_path))
        return GM_EXIT_USAGE;
    size_t ol = strlen(o.out_path);
    csv = csv || (ol >= 4 && strcmp(o.out_path + ol - 4, ".csv") == 0);
    if (csv) {
        if (n_inputs > 1 || o.baseline_name) {
            gm_cli_error("render: --format csv takes one results file and no --baseline");
            return GM_EXIT_USAGE;
        }
        return S_csv(input, o.out_path);
    }
    if (n_inputs > 1)
        return S_compare(inputs, n_inputs, &o);

    gm_results r, base;
    gm_error err = {0};
    if (gm_results_read_file(input, &r, &err) != GM_OK) {
        gm_cli_error("%s", err.message);
        return GM_EXIT_USAGE;
    }
    S_fill_questions(&r, input);
    /* the baseline is read, and checked for runs it cannot pair, before any
     * chart is drawn */
    if (o.baseline_name && (gm_results_read_file(o.baseline_name, &base, &err) != GM_OK ||
                            gm_diff_check_file(&base, o.baseline_name, &err) != GM_OK)) {
        gm_cli_error("render: --baseline: %s", err.message);
        gm_results_free(&base);   /* zeroed when it could not be read */
        gm_results_free(&r);
        return GM_EXIT_USAGE;
    }
    o.baseline = o.baseline_name ? &base : NULL;
    o.results_name = input;
    char *exe = gm_cli_exe_path();
    o.exe_path = exe;
    gm_status st = gm_render(&r, &o, &err);
    free(exe);
    if (o.baseline)
        gm_results_free(&base);
    gm_results_free(&r);
    if (st == GM_ERR_INCOMPLETE) {
        gm_cli_error("render: the report %s is written, but incomplete: %s", o.out_path,
                     err.message);
        return GM_EXIT_FAIL;
    }
    if (st != GM_OK) {
        gm_cli_error("render: %s", err.message);
        return GM_EXIT_USAGE;
    }
    return GM_EXIT_OK;
}

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

#ifndef GM_DATADIR
#define GM_DATADIR "/usr/local/share/gpumem-report"
#endif

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

static void S_usage(FILE *f)
{
    fputs("usage: gpumem-report render RUN.json --out FILE [options]\n"
          "       gpumem-report render A.json B.json [C.json...] --out FILE [options]\n"
          "\n"
          "Writes the report of a results file: Markdown (GitHub-flavoured, charts as SVG\n"
          "files in FILE's stem + .charts/) or one self-contained HTML page.  Given\n"
          "several results files (one per device), writes one report that compares the\n"
          "devices side by side: runs paired as `gpumem-report diff` pairs them, each\n"
          "device against its own measured ceiling, cases run on some devices only listed.\n"
          "\n"
          "  -o, --out FILE     the report; its extension (.md, .html or .csv) picks the\n"
          "                     format; - is standard output (Markdown unless --format).\n"
          "                     Never an input file (refused, exit 2)\n"
          "  --format md|html|csv|gfm\n"
          "                     the format, whatever the extension (default: from FILE;\n"
          "                     csv: one line per run and metric; gfm: one Markdown file\n"
          "                     to paste into a GitHub issue or comment, charts left out,\n"
          "                     a line says how many)\n"
          "  --only EXP[,EXP]   these experiments alone (ids as `gpumem-report list` gives\n"
          "                     them), for a writeup (default: all)\n"
          "  --template FILE    HTML template (default: $GM_TEMPLATE_DIR/report.html, else\n"
          "                     templates/report.html beside the build directory, else\n"
          "                     " GM_DATADIR "/templates/report.html)\n"
          "  --gnuplot PATH     the gnuplot program that draws the charts (default: gnuplot\n"
          "                     from PATH; Debian/Ubuntu: apt-get install gnuplot-nox)\n"
          "  --gnuplot-timeout SECONDS\n"
          "                     longest one gnuplot run may take; past it gnuplot is killed\n"
          "                     and the render stops, writing nothing (default: 60; 0: no\n"
          "                     limit)\n"
          "  --timestamp        show when the results were taken (default: not shown, so\n"
          "                     the same results give the same bytes)\n"
          "  --baseline BASE.json\n"
          "                     add a section \"Changes since <BASE's commit>\": these results\n"
          "                     against BASE run by run, as `gpumem-report diff BASE.json\n"
          "                     RUN.json` judges them (default: no such section)\n"
          "  -h, --help         this text\n",
          f);
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
    gm_render_opts o = {0};
    bool csv = false;
    const char *input = NULL;
    const char *inputs[GM_COMPARE_MAX];
    size_t n_inputs = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_next = i + 1 < argc;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            S_usage(stdout);
            return GM_EXIT_OK;
        } else if (strcmp(a, "--out") == 0 || strcmp(a, "-o") == 0) {
            if (!has_next)
                goto missing;
            o.out_path = argv[++i];
        } else if (strcmp(a, "--format") == 0) {
            if (!has_next)
                goto missing;
            const char *f = argv[++i];
            if (strcmp(f, "md") == 0 || strcmp(f, "markdown") == 0)
                o.format = GM_FORMAT_MD;
            else if (strcmp(f, "html") == 0)
                o.format = GM_FORMAT_HTML;
            else if (strcmp(f, "csv") == 0)
                csv = true;
            else if (strcmp(f, "gfm") == 0 || strcmp(f, "github") == 0)
                o.format = GM_FORMAT_GFM;
            else {
                gm_cli_error("render: --format: '%s' is not md, html, csv or gfm", f);
                return GM_EXIT_USAGE;
            }
        } else if (strcmp(a, "--only") == 0) {
            if (!has_next)
                goto missing;
            o.only = argv[++i];
        } else if (strcmp(a, "--template") == 0) {
            if (!has_next)
                goto missing;
            o.template_path = argv[++i];
        } else if (strcmp(a, "--gnuplot") == 0) {
            if (!has_next)
                goto missing;
            o.gnuplot = argv[++i];
        } else if (strcmp(a, "--gnuplot-timeout") == 0) {
            if (!has_next)
                goto missing;
            if (!gm_cli_seconds(a, argv[++i], &o.gnuplot_timeout))
                return GM_EXIT_USAGE;
        } else if (strcmp(a, "--timestamp") == 0) {
            o.timestamp = true;
        } else if (strcmp(a, "--baseline") == 0) {
            if (!has_next)
                goto missing;
            o.baseline_name = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            gm_cli_error("render: unknown option '%s' (see gpumem-report render --help)", a);
            return GM_EXIT_USAGE;
        } else {
            if (n_inputs == GM_COMPARE_MAX) {
                gm_cli_error("render: at most %d results files in one comparison", GM_COMPARE_MAX);
                return GM_EXIT_USAGE;
            }
            inputs[n_inputs++] = a;
            input = inputs[0];
        }
        continue;
    missing:
        gm_cli_error("render: %s needs a value (see gpumem-report render --help)", a);
        return GM_EXIT_USAGE;
    }
    if (!input) {
        gm_cli_error("render: no results file given");
        S_usage(stderr);
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

/* cmd_diff.c — `gpumem-report diff BASE.json HEAD.json`: the command line
 * around diff.c.  Reads both files, compares, writes the outputs through
 * temporary files renamed into place, and chooses the exit code:
 *   0  no regression (or --warn-only)
 *   1  a regression beyond its threshold, or a run whose validation failed in head
 *   2  cannot judge: bad option, unreadable or malformed file, runs that cannot
 *      be paired, or files collected differently (without --force); in the
 *      last case the diff is still written, saying why.
 */
#include "cli.h"
#include "../reports/diff.h"
#include "../core/output.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void S_help(FILE *f)
{
    fputs("usage: gpumem-report diff BASE.json HEAD.json [OPTIONS]\n"
          "\n"
          "Compare HEAD's results against BASE's: runs are paired by experiment, variant and\n"
          "parameters (a program's kernels by kernel and NVTX range, whatever their launch\n"
          "configuration, shown beside the row); every metric both have and the timing are\n"
          "compared, and each layout (a program's kernel) gets one verdict. Counts gate,\n"
          "rates explain: the gate judges sectors, requests, shared conflicts and wavefronts,\n"
          "instructions, DRAM bytes and time; hit rates, % of peak, bytes/second,\n"
          "efficiency, sectors/request, occupancy and the profiler's duration are shown\n"
          "beside them and gate only when --threshold names them. Without --out the\n"
          "Markdown goes to standard output.\n"
          "\n",
          f);
    fputs("options:\n"
          "  --out FILE           write the diff to FILE: Markdown, HTML when FILE ends in\n"
          "                       .html or .htm, CSV when it ends in .csv; - is standard\n"
          "                       output (default: Markdown on standard output); never an\n"
          "                       input file (refused, exit 2)\n"
          "  --format md|html|csv format of --out, overriding its extension (default: from it)\n"
          "  --json FILE          also write the diff as JSON for machines (default: none)\n"
          "  --threshold M=V[,F]  threshold for metric M: V is 5% (relative), 0.5 (absolute,\n"
          "                       in M's unit; percentage points for % metrics) or exact;\n"
          "                       F, a floor the change must also exceed: 2MiB, 1e10 (M's\n"
          "                       unit) or 0.05/inst (per shared instruction; shared\n"
          "                       conflicts and wavefronts). M is an ncu metric name, a\n"
          "                       catalog label or 'time'. Repeatable; the last one for a\n"
          "                       metric wins. A rate given a threshold gates; time given\n"
          "                       one is judged by it alone (no floor between sessions).\n"
          "                       (default: time 5%, and p < alpha, or with too few\n"
          "                       samples beyond their spread (one a side: 10%), and when\n"
          "                       no count moved beyond 10 us too; sectors, requests\n"
          "                       and instructions exact; shared conflicts and wavefronts\n"
          "                       1%,0.05/inst; DRAM bytes 2%,2MiB; rates, shown and not\n"
          "                       gated: DRAM bytes/s 10%,1e10, L2 hit 10 (points), other\n"
          "                       percentages 5 (points), duration 20%; metrics not in the\n"
          "                       catalog 5%)\n"
          "  --alpha P            significance level of the timing noise test, 0 < P < 1\n"
          "                       (default: 0.05)\n"
          "  --all                every layout and row, unchanged ones too, nothing folded\n"
          "                       and no size cap (default: one verdict per layout that\n"
          "                       changed, regressions first, its rows folded under it in\n"
          "                       <details>, time first; the Markdown cut at 60,000\n"
          "                       characters to fit a pull-request comment)\n"
          "  --only-changed       the default; kept for scripts that give it\n"
          "  --max-rows N         show at most N rows in the table; 0 for all (default: 0)\n"
          "  --pair OLD=NEW       pair base runs named OLD with head runs named NEW (a renamed\n"
          "                       kernel or variant): EXPERIMENT/VARIANT or VARIANT, one '*'\n"
          "                       in OLD matches any text and stands for it in NEW\n"
          "                       (transpose/tile_*=transpose/smem_*); a program's kernel\n"
          "                       also by its name without a launch configuration, so one\n"
          "                       rule covers them all. Repeatable; the first rule that\n"
          "                       matches a run renames it (default: none)\n"
          "  --allow-missing      runs of BASE missing from HEAD do not fail the gate\n"
          "                       (default: they do: a change that drops runs must say so)\n"
          "  --force              judge rows even when the files were collected differently\n"
          "                       (GPU, driver, CUPTI, metrics, L2 flush, clocks, size set,\n"
          "                       schema) (default: such rows are marked incomparable, exit 2)\n"
          "  --warn-only          exit 0 even when something regressed (default: exit 1)\n"
          "  -h, --help           this help\n"
          "\n"
          "exit status: 0 no regression, 1 a regression, a failed validation in HEAD, runs\n"
          "missing from HEAD (without --allow-missing) or nothing paired,\n"
          "2 bad input or option, or files collected differently without --force.\n"
          "See docs/diff.md, and docs/ci.md for a CI recipe.\n",
          f);
}

typedef struct {
    const char *files[2];
    const char *out;
    const char *format;
    const char *json;
    gm_diff_override *overrides;
    size_t n_overrides;
    double alpha;
    long long max_rows;
    bool only_changed, force, warn_only, all, allow_missing;
    gm_diff_pair *pairs;
    size_t n_pairs;
} S_args;

static void S_args_free(S_args *a)
{
    for (size_t i = 0; i < a->n_overrides; i++)
        free(a->overrides[i].metric);
    free(a->overrides);
    for (size_t i = 0; i < a->n_pairs; i++) {
        free(a->pairs[i].from);
        free(a->pairs[i].to);
    }
    free(a->pairs);
}

/* "--opt VALUE" or "--opt=VALUE": the value, or NULL (and a message). */
static const char *S_value(int argc, char **argv, int *i, const char *opt)
{
    size_t n = strlen(opt);
    const char *a = argv[*i];
    if (a[n] == '=')
        return a + n + 1;
    if (*i + 1 >= argc) {
        gm_cli_error("diff: %s needs a value (see gpumem-report diff --help)", opt);
        return NULL;
    }
    return argv[++*i];
}

static bool S_is(const char *arg, const char *opt)
{
    size_t n = strlen(opt);
    return strncmp(arg, opt, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

/* 0 parsed, 1 help printed, 2 error printed. */
static int S_parse(int argc, char **argv, S_args *a)
{
    size_t nfiles = 0;
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (nfiles == 2) {
                gm_cli_error("diff: unexpected argument '%s': give BASE.json and HEAD.json", arg);
                return 2;
            }
            a->files[nfiles++] = arg;
        } else if (strcmp(arg, "--") == 0) {
            options_done = true;
        } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            S_help(stdout);
            return 1;
        } else if (S_is(arg, "--out")) {
            if (!(v = S_value(argc, argv, &i, "--out")))
                return 2;
            a->out = v;
        } else if (S_is(arg, "--format")) {
            if (!(v = S_value(argc, argv, &i, "--format")))
                return 2;
            if (strcmp(v, "md") != 0 && strcmp(v, "html") != 0 && strcmp(v, "csv") != 0) {
                gm_cli_error("diff: --format: '%s' is not md, html or csv", v);
                return 2;
            }
            a->format = v;
        } else if (S_is(arg, "--json")) {
            if (!(v = S_value(argc, argv, &i, "--json")))
                return 2;
            a->json = v;
        } else if (S_is(arg, "--threshold")) {
            if (!(v = S_value(argc, argv, &i, "--threshold")))
                return 2;
            gm_diff_override o;
            gm_error err;
            if (gm_threshold_parse(v, &o.metric, &o.thr, &err) != GM_OK) {
                gm_cli_error("diff: %s", err.message);
                return 2;
            }
            a->overrides = realloc(a->overrides, (a->n_overrides + 1) * sizeof *a->overrides);
            if (!a->overrides) {
                gm_cli_error("out of memory");
                return 2;
            }
            a->overrides[a->n_overrides++] = o;
        } else if (S_is(arg, "--alpha")) {
            if (!(v = S_value(argc, argv, &i, "--alpha")))
                return 2;
            char *end = NULL;
            errno = 0;
            double p = strtod(v, &end);
            if (!*v || *end || errno || !(p > 0.0 && p < 1.0)) {
                gm_cli_error("diff: --alpha: '%s' is not a number between 0 and 1", v);
                return 2;
            }
            a->alpha = p;
        } else if (S_is(arg, "--max-rows")) {
            if (!(v = S_value(argc, argv, &i, "--max-rows")))
                return 2;
            if (!gm_cli_int("diff: --max-rows", v, 0, 1000000000, &a->max_rows))
                return 2;
        } else if (S_is(arg, "--pair")) {
            if (!(v = S_value(argc, argv, &i, "--pair")))
                return 2;
            gm_diff_pair p;
            gm_error err;
            if (gm_diff_pair_parse(v, &p, &err) != GM_OK) {
                gm_cli_error("diff: %s", err.message);
                return 2;
            }
            a->pairs = realloc(a->pairs, (a->n_pairs + 1) * sizeof *a->pairs);
            if (!a->pairs) {
                gm_cli_error("out of memory");
                return 2;
            }
            a->pairs[a->n_pairs++] = p;
        } else if (strcmp(arg, "--only-changed") == 0) {
            a->only_changed = true;
        } else if (strcmp(arg, "--all") == 0) {
            a->all = true;
        } else if (strcmp(arg, "--allow-missing") == 0) {
            a->allow_missing = true;
        } else if (strcmp(arg, "--force") == 0) {
            a->force = true;
        } else if (strcmp(arg, "--warn-only") == 0) {
            a->warn_only = true;
        } else {
            gm_cli_error("diff: unknown option '%s' (see gpumem-report diff --help)", arg);
            return 2;
        }
    }
    if (nfiles != 2) {
        gm_cli_error("diff: give two results files, BASE.json and HEAD.json "
                     "(see gpumem-report diff --help)");
        return 2;
    }
    if (a->out && a->json && strcmp(a->out, a->json) == 0) {
        gm_cli_error("diff: --out and --json name the same file '%s'", a->out);
        return 2;
    }
    if (a->json && strcmp(a->json, "-") == 0 && (!a->out || strcmp(a->out, "-") == 0)) {
        gm_cli_error("diff: --json - and the diff both on standard output: give --out FILE");
        return 2;
    }
    if (a->format && !a->out) {
        gm_cli_error("diff: --format applies to --out, which is not given");
        return 2;
    }
    return 0;
}

static bool S_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int S_exit_code(const gm_diff *d, const S_args *a)
{
    if (!d->comparable && !a->force)
        return GM_EXIT_USAGE;
    if (gm_diff_has_regression(d) && !a->warn_only)
        return GM_EXIT_FAIL;
    return GM_EXIT_OK;
}

int gm_cmd_diff(int argc, char **argv)
{
    S_args a = {.alpha = 0.05};
    int pr = S_parse(argc, argv, &a);
    if (pr != 0) {
        S_args_free(&a);
        return pr == 1 ? GM_EXIT_OK : GM_EXIT_USAGE;
    }

    gm_results base, head;
    gm_error err;
    if (gm_results_read_file(a.files[0], &base, &err) != GM_OK) {
        gm_cli_error("diff: base: %s", err.message);
        S_args_free(&a);
        return GM_EXIT_USAGE;
    }
    if (gm_results_read_file(a.files[1], &head, &err) != GM_OK) {
        gm_cli_error("diff: head: %s", err.message);
        gm_results_free(&base);
        S_args_free(&a);
        return GM_EXIT_USAGE;
    }

    gm_diff_options o = {.overrides = a.overrides, .n_overrides = a.n_overrides,
                         .alpha = a.alpha, .force = a.force, .base_name = a.files[0],
                         .head_name = a.files[1], .pairs = a.pairs, .n_pairs = a.n_pairs,
                         .allow_missing = a.allow_missing};
    gm_diff d;
    int rc = GM_EXIT_USAGE;
    char *md = NULL, *out = NULL, *json = NULL;
    if (gm_diff_compute(&base, &head, &o, &d, &err) != GM_OK) {
        gm_cli_error("diff: %s", err.message);
        goto done_results;
    }
    rc = S_exit_code(&d, &a);

    gm_diff_render ro = {.base_name = a.files[0], .head_name = a.files[1],
                         .only_changed = true, .max_rows = (size_t)a.max_rows, .all = a.all,
                         .full_name = a.json};
    bool to_stdout = !a.out || strcmp(a.out, "-") == 0;
    bool html = a.out && (a.format ? strcmp(a.format, "html") == 0
                                   : S_ends_with(a.out, ".html") || S_ends_with(a.out, ".htm"));
    bool csv = a.out && (a.format ? strcmp(a.format, "csv") == 0 : S_ends_with(a.out, ".csv"));
    if (csv) {
        out = gm_diff_to_csv(&d);
    } else if (html) {
        out = gm_diff_to_html(&d, &ro, &err);
        if (!out) {
            gm_cli_error("diff: %s", err.message);
            rc = GM_EXIT_USAGE;
            goto done;
        }
    } else {
        md = gm_diff_to_markdown(&d, &ro);
    }
    if (a.json)
        json = gm_diff_to_json(&d, &ro, rc);

    /* Both outputs are staged (regular files reach their temporary files)
     * before either is committed, so a failure leaves neither half-written;
     * neither may be an input (output.h: same device and inode, whatever the
     * path); other streams (a FIFO, /dev/full) are written in place with
     * their errors reported.  "-" is printed below. */
    const char *text = html || csv ? out : md;
    const char *inputs[] = {a.files[0], a.files[1]};
    bool file_json = a.json && strcmp(a.json, "-") != 0;
    gm_output o_out = {0}, o_json = {0};
    o_out.cleanup = o_json.cleanup = -1;
    bool ok = (to_stdout || (gm_output_open(&o_out, a.out, inputs, 2, &err) == GM_OK &&
                             gm_output_stage(&o_out, text, strlen(text), &err) == GM_OK)) &&
              (!file_json || (gm_output_open(&o_json, a.json, inputs, 2, &err) == GM_OK &&
                              gm_output_stage(&o_json, json, strlen(json), &err) == GM_OK)) &&
              (to_stdout || gm_output_commit(&o_out, &err) == GM_OK) &&
              (!file_json || gm_output_commit(&o_json, &err) == GM_OK);
    gm_output_close(&o_out);
    gm_output_close(&o_json);
    if (!ok) {
        gm_cli_error("diff: %s", err.message);
        rc = GM_EXIT_USAGE;
        goto done;
    }

    if (a.json && strcmp(a.json, "-") == 0)
        fputs(json, stdout);
    if (to_stdout) {
        fputs(text, stdout);
    } else {
        char *v = gm_diff_gate_line(&d);
        printf("gpumem-report diff: %s -> %s\n", v, a.out);
        free(v);
    }
    if (fflush(stdout) != 0) {
        gm_cli_error("diff: cannot write to standard output: %s", strerror(errno));
        rc = GM_EXIT_USAGE;
    }
    if (!d.comparable) {
        gm_cli_error("diff: base and head were collected differently (%zu difference%s, "
                     "listed in the diff)%s", d.n_reasons, d.n_reasons == 1 ? "" : "s",
                     a.force ? "; compared anyway (--force)"
                             : ": rows not judged; --force compares them anyway");
    }

done:
    free(md);
    free(out);
    free(json);
    gm_diff_free(&d);
done_results:
    gm_results_free(&base);
    gm_results_free(&head);
    S_args_free(&a);
    return rc;
}

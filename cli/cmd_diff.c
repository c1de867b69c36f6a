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
#include "options.h"
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

/* The options (cli/options.h; their table, gm_opts_diff, is in cli/options.c). */
typedef gm_diff_args S_args;

static void S_args_free(S_args *a)
{
    gm_threshold_list_free(&a->thresholds);
    gm_pair_list_free(&a->pairs);
}

/* 0 parsed, 1 help printed, 2 error printed. */
static int S_parse(int argc, char **argv, S_args *a)
{
    int p = gm_opt_parse(&gm_opts_diff, 0, argc, argv, a, NULL);
    if (p)
        return p;
    if (a->n_files != 2) {
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

    gm_diff_options o = {.overrides = a.thresholds.v, .n_overrides = a.thresholds.n,
                         .alpha = a.alpha, .force = a.force, .base_name = a.files[0],
                         .head_name = a.files[1], .pairs = a.pairs.v, .n_pairs = a.pairs.n,
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

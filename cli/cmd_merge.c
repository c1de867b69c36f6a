/* gpumem-report merge FILES... --json all.json [--sum]
 *
 * Gathers the per-rank results of one job into one results file
 * (reports/merge.h says how).  Exit status: 0 written, 2 bad arguments or
 * bad input (nothing written).
 */
#include "cli.h"
#include "options.h"
#include "../core/buf.h"
#include "../core/output.h"
#include "../core/results.h"
#include "../reports/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    dev_t dev;
    ino_t ino;
    size_t i;
} S_file_id;

static int S_file_id_cmp(const void *a, const void *b)
{
    const S_file_id *x = a, *y = b;
    if (x->dev != y->dev)
        return (x->dev > y->dev) - (x->dev < y->dev);
    if (x->ino != y->ino)
        return (x->ino > y->ino) - (x->ino < y->ino);
    return (x->i > y->i) - (x->i < y->i);
}

/* One file given twice (the same name, or two names of one file: a link, a
 * path through another directory) would count one rank twice.  False after
 * printing which.  A file that cannot be stat'ed is left to the read. */
static bool S_distinct(const char *const *files, size_t n)
{
    S_file_id *ids = gm_xcalloc(n + 1, sizeof *ids);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat sb;
        int r = strcmp(files[i], "-") == 0 ? fstat(STDIN_FILENO, &sb) : stat(files[i], &sb);
        if (r == 0)
            ids[m++] = (S_file_id){sb.st_dev, sb.st_ino, i};
    }
    qsort(ids, m, sizeof *ids, S_file_id_cmp);
    bool ok = true;
    for (size_t k = 1; k < m && ok; k++)
        if (ids[k].dev == ids[k - 1].dev && ids[k].ino == ids[k - 1].ino) {
            const char *a = files[ids[k - 1].i], *b = files[ids[k].i];
            if (strcmp(a, b) == 0)
                gm_cli_error("merge: %s is given twice: merge gathers one file per rank", a);
            else
                gm_cli_error("merge: %s and %s are the same file: merge gathers one file per "
                             "rank", a, b);
            ok = false;
        }
    free(ids);
    return ok;
}

int gm_cmd_merge(int argc, char **argv)
{
    gm_merge_args a;
    memset(&a, 0, sizeof a);
    a.files = gm_xcalloc((size_t)argc + 1, sizeof *a.files);
    int rc = GM_EXIT_USAGE;
    int p = gm_opt_parse(&gm_opts_merge, 0, argc, argv, &a, NULL);
    const char *json = a.json;
    bool sum = a.sum;
    const char **files = a.files;
    size_t n = a.n_files;
    if (p == 1)
        rc = GM_EXIT_OK;
    if (p)
        goto out;
    if (!json) {
        gm_cli_error("merge: --json ALL.json is required");
        goto out;
    }
    if (n == 0) {
        gm_cli_error("merge: no results files given");
        goto out;
    }
    if (!S_distinct(files, n))
        goto out;
    char *path = gm_cli_expand("--json", json, -1);
    if (!path)
        goto out;
    gm_error cerr = {GM_OK, ""};
    /* an input is never overwritten, whatever path names it (output.h) */
    if (gm_output_check(path, files, n, &cerr) != GM_OK) {
        gm_cli_error("merge: --json: %s", cerr.message);
        free(path);
        goto out;
    }
    gm_results *in = gm_xcalloc(n, sizeof *in);
    gm_error err = {GM_OK, ""};
    size_t read = 0;
    for (; read < n; read++)
        if (gm_results_read_file(files[read], &in[read], &err) != GM_OK) {
            gm_cli_error("merge: %s", err.message);
            break;
        }
    if (read == n) {
        gm_results out;
        if (gm_results_merge(in, files, n, sum, &out, &err) != GM_OK) {
            gm_cli_error("merge: %s", err.message);
            for (size_t i = 0; i < n; i++)
                gm_results_free(&in[i]);
        } else {
            char *json_text = gm_results_to_json(&out);
            gm_status wst = gm_output_write(path, json_text, strlen(json_text), files, n, &err);
            free(json_text);
            if (wst != GM_OK) {
                gm_cli_error("merge: %s", err.message);
                rc = GM_EXIT_FAIL;
            } else {
                fprintf(stderr, "merged: %s (%zu ranks, %zu runs)\n", path, n, out.n_runs);
                rc = GM_EXIT_OK;
            }
            gm_results_free(&out);
        }
    } else {
        for (size_t i = 0; i < read; i++)
            gm_results_free(&in[i]);
    }
    free(in);
    free(path);
out:
    free(files);
    return rc;
}

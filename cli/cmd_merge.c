/* gpumem-report merge FILES... --json all.json [--sum]
 *
 * Gathers the per-rank results of one job into one results file
 * (reports/merge.h says how).  Exit status: 0 written, 2 bad arguments or
 * bad input (nothing written).
 */
#include "cli.h"
#include "../core/buf.h"
#include "../core/output.h"
#include "../core/results.h"
#include "../reports/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void S_usage(FILE *f)
{
    fputs("usage: gpumem-report merge RANK.json... --json ALL.json [--sum]\n"
          "\n"
          "Gathers the results files of the ranks of one job (e.g. written by\n"
          "`srun gpumem-report --json app-%r.json -- ./app`) into one file whose report\n"
          "shows the ranks side by side.  Each file's rank is the one it recorded\n"
          "(RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK,\n"
          "MV2_COMM_WORLD_RANK or PALS_RANKID), 0 to 2^20 - 1; a file without one takes\n"
          "its place on the command line.  A file given twice (by any name, or a copy of\n"
          "it) is refused.\n"
          "\n"
          "  --json FILE   the merged results file (required; - for standard output;\n"
          "                %h %r %l %p expand as in collect)\n"
          "  --sum         one run per kernel, the ranks added up (GPU time over the job,\n"
          "                counts summed exactly, ratios averaged, the least and most busy\n"
          "                rank noted; a count past 2^53 is refused); default: every\n"
          "                rank's runs, with a parameter rank\n"
          "  -h, --help    this text\n",
          f);
}

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
    const char *json = NULL;
    bool sum = false;
    const char **files = gm_xcalloc((size_t)argc + 1, sizeof *files);
    size_t n = 0;
    int rc = GM_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            S_usage(stdout);
            free(files);
            return GM_EXIT_OK;
        } else if (strcmp(a, "--json") == 0) {
            if (i + 1 >= argc) {
                gm_cli_error("merge: --json needs a value");
                goto out;
            }
            json = argv[++i];
        } else if (strcmp(a, "--sum") == 0) {
            sum = true;
        } else if (a[0] == '-' && a[1]) {
            gm_cli_error("merge: unknown option '%s' (see gpumem-report merge --help)", a);
            goto out;
        } else {
            files[n++] = a;
        }
    }
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

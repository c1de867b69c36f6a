/* suite.c — the list of experiments, in the suite's order, and the table of
 * all their rows (suite.h; case.h for the life of a case).
 *
 * Each experiment's folder owns its description and its rows
 * (kernels/<experiment>/<experiment>.c: gm_exp_<id>, gm_<id>_rows); this file
 * only lists the experiments.  Their order here is the order of `gpumem-report
 * list`, of a run and of the report.  Adding an experiment is one line in
 * S_EXPERIMENTS; adding a variant touches only its experiment's folder.
 * `gpumem-report list`, --only/--skip, the table tests (tests/test_suite.c),
 * the GPU validation (tests/gpu/suite_validate.c) and the report follow from
 * the table.
 */
#include "suite.h"

#include "../core/buf.h"

#include <stdlib.h>
#include <string.h>

/* The experiments, one line each, in the suite's order. */
#define S_EXPERIMENTS(X)                                                          \
    X(coalescing)                                                                 \
    X(alignment)                                                                  \
    X(aos_soa)                                                                    \
    X(rgb)                                                                        \
    X(traversal2d)                                                                \
    X(grid3d)                                                                     \
    X(matvec)                                                                     \
    X(matmul)                                                                     \
    X(transpose)                                                                  \
    X(banks)                                                                      \
    X(spmv)                                                                       \
    X(conv)                                                                       \
    X(texture)                                                                    \
    X(dp)

/* What each experiment's folder defines (and its header declares). */
#define S_DECLARE(id)                                                             \
    extern const gm_experiment_def gm_exp_##id;                                   \
    extern const gm_variant gm_##id##_rows[];                                     \
    extern const size_t gm_##id##_rows_len;
S_EXPERIMENTS(S_DECLARE)

#define S_EXPERIMENT(id) &gm_exp_##id,
const gm_experiment_def *const gm_experiments[] = {S_EXPERIMENTS(S_EXPERIMENT)};
const size_t gm_experiments_len = sizeof gm_experiments / sizeof gm_experiments[0];

const gm_experiment_def *gm_experiment_find(const char *id)
{
    for (size_t i = 0; i < gm_experiments_len; i++)
        if (strcmp(gm_experiments[i]->id, id) == 0)
            return gm_experiments[i];
    return NULL;
}

/* ---- the table: one row per variant --------------------------------------- */

typedef struct {
    const gm_variant *rows;
    const size_t *len;
} S_rows;

#define S_ROWS(id) {gm_##id##_rows, &gm_##id##_rows_len},
static const S_rows S_all_rows[] = {S_EXPERIMENTS(S_ROWS)};

const gm_variant *gm_suite;
size_t gm_suite_len;

/* The rows live in their experiments' files, so no one initialiser can list
 * them: the table is copied together from them once, when the program is
 * loaded (before main, so that every reader finds it built), and kept for
 * the life of the program. */
__attribute__((constructor)) static void S_build_table(void)
{
    size_t n = 0;
    for (size_t e = 0; e < sizeof S_all_rows / sizeof S_all_rows[0]; e++)
        n += *S_all_rows[e].len;
    gm_variant *table = gm_xcalloc(n, sizeof *table);
    size_t k = 0;
    for (size_t e = 0; e < sizeof S_all_rows / sizeof S_all_rows[0]; e++) {
        memcpy(table + k, S_all_rows[e].rows, *S_all_rows[e].len * sizeof *table);
        k += *S_all_rows[e].len;
    }
    gm_suite = table;
    gm_suite_len = n;
}

gm_status gm_suite_find_case(const char *exp, const char *var, char *const *args, int n,
                             bool quick, gm_case **cases, gm_case **c, gm_error *err)
{
    const gm_variant *v = NULL;
    *cases = NULL;
    *c = NULL;
    for (size_t r = 0; r < gm_suite_len && !v; r++)
        if (strcmp(gm_suite[r].experiment->id, exp) == 0 && strcmp(gm_suite[r].name, var) == 0)
            v = &gm_suite[r];
    if (!v)
        return gm_fail(err, GM_ERR_VALUE, "no variant %s/%s (see gpumem-report list)", exp, var);
    size_t nc = gm_variant_cases(v, quick, NULL, 0);
    *cases = gm_xcalloc(nc ? nc : 1, sizeof **cases);
    gm_variant_cases(v, quick, *cases, nc);
    for (size_t k = 0; k < nc && !*c; k++) {
        bool all = true;
        for (int a = 0; a < n && all; a++) {
            const char *eq = strchr(args[a], '=');
            char *end;
            long long val = eq ? strtoll(eq + 1, &end, 10) : 0;
            bool found = false;
            for (int p = 0; eq && p < (*cases)[k].n_params; p++)
                if (strlen((*cases)[k].params[p].name) == (size_t)(eq - args[a]) &&
                    strncmp((*cases)[k].params[p].name, args[a], (size_t)(eq - args[a])) == 0)
                    found = (*cases)[k].params[p].value == val && *end == '\0';
            all = found;
        }
        if (all)
            *c = &(*cases)[k];
    }
    if (!*c)
        return gm_fail(err, GM_ERR_VALUE, "%s/%s has no case with those parameters", exp, var);
    return GM_OK;
}

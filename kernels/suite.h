/* suite.h — the experiment suite as data.
 *
 * Every kernel variant is one row of the table gm_suite[]: which experiment,
 * its name, what its layout is, the parameters it sweeps, and the functions
 * that set it up, launch it, restore its inputs, check it against the CPU
 * reference and free it.  Each experiment's rows are defined in its folder
 * (kernels/<experiment>/<experiment>.c); suite.c lists the experiments and
 * builds the table from them.  Adding a variant is one launch function and
 * one row; `gpumem-report list`, --only/--skip, the tests and the report all
 * follow from the table.  The types of a row and of a case, and the helpers
 * the experiments share, are case.h's.
 */
#ifndef GM_SUITE_H
#define GM_SUITE_H

#include "case.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The experiments, in the suite's order (that of `list`, a run and the report). */
extern const gm_experiment_def *const gm_experiments[];
extern const size_t gm_experiments_len;
/* Every row: each experiment's rows in turn, in the order of gm_experiments[]
 * and, within one, of its enum.  Built from the experiments' folders when the
 * program is loaded (suite.c); read-only after. */
extern const gm_variant *gm_suite;
extern size_t gm_suite_len;

const gm_experiment_def *gm_experiment_find(const char *id);

/* The case of experiment exp, variant var whose parameters are the "NAME=VALUE"
 * words args[0..n) (each of its parameters named once, whole numbers), at the
 * chosen size set, as the per-line pass's children take it: *cases holds the
 * variant's cases (the caller frees it, also on failure) and *c points to the
 * one found.  GM_ERR_VALUE naming the variant, or the parameters, when there
 * is none. */
gm_status gm_suite_find_case(const char *exp, const char *var, char *const *args, int n,
                             bool quick, gm_case **cases, gm_case **c, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif

/* suite.h — the experiment suite as data.
 *
 * Every kernel variant is one row of the table gm_suite[] (suite.c): which
 * experiment, its name, what its layout is, the parameters it sweeps, and the
 * functions that set it up, launch it, restore its inputs, check it against
 * the CPU reference and free it.  Adding a variant is one launch function and
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

extern const gm_experiment_def *const gm_experiments[];
extern const size_t gm_experiments_len;
extern const gm_variant gm_suite[];
extern const size_t gm_suite_len;

const gm_experiment_def *gm_experiment_find(const char *id);

#ifdef __cplusplus
}
#endif

#endif

/* traversal2d.h — experiment 5, row vs column mapping of a 2-D traversal: what its files share.
 *
 *   kernels.cu     the kernels, their launches, setup/reset/check/teardown (CUDA)
 *   traversal2d.c  the description and the rows of the suite table, describe and
 *                  the CPU reference (plain C, no CUDA)
 *   trace.c        the address trace for the model (plain C)
 *
 * Each row (traversal2d.c) gives its variant's number below (gm_variant.kind); the
 * code switches on it, never on the name.  suite.c lists the experiment.
 */
#ifndef GM_TRAVERSAL2D_H
#define GM_TRAVERSAL2D_H

#include "../case.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The variants, in the table's order. */
enum {
    GM_TRAVERSAL2D_ROW_MAPPING,
    GM_TRAVERSAL2D_COL_MAPPING,
};

#define TRAVERSAL2D_BX 32
#define TRAVERSAL2D_BY 8

/* ---- CPU side: traversal2d.c, trace.c ---------------------------------------------------- */

/* The experiment and its rows, in the order of the enum above. */
extern const gm_experiment_def gm_exp_traversal2d;
extern const gm_variant gm_traversal2d_rows[];
extern const size_t gm_traversal2d_rows_len;

gm_status traversal2d_describe(gm_case *c, gm_error *err);
gm_status traversal2d_trace(const gm_case *c, struct gm_trace *t, gm_error *err);

/* The CPU reference.
 *
 * 5. traversal2d: c[i] = a[i] + b[i] for i in [i0, i1). */
void gm_ref_add(const float *a, const float *b, float *c, size_t i0, size_t i1);

/* ---- GPU side: kernels.cu (linked only with the CUDA toolkit) ---------------------------- */

gm_status traversal2d_setup(gm_case *c, gm_error *err);
gm_status traversal2d_reset(gm_case *c, gm_stream s, gm_error *err);
gm_status traversal2d_check(gm_case *c, gm_check *out, gm_error *err);
void traversal2d_teardown(gm_case *c);
gm_status traversal2d_launch_row_mapping(gm_case *c, gm_stream s, gm_error *err);
gm_status traversal2d_launch_col_mapping(gm_case *c, gm_stream s, gm_error *err);

#ifdef __cplusplus
}
#endif

#endif

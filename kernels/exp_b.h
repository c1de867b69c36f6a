/* exp_b.h — small helpers shared by the files of experiments 8-14
 * (exp_matmul.cu, exp_transpose.cu, exp_banks.cu, exp_spmv.cu, exp_conv.cu,
 * exp_texture.cu, exp_dp.cu).  CUDA C++ only: the suite table (suite.c)
 * declares the entry points itself.
 */
#ifndef GM_EXP_B_H
#define GM_EXP_B_H

#ifndef __CUDACC__
#error "exp_b.h is for the experiments' .cu files"
#endif

#include "suite.h"

extern "C" {
#include "../core/buf.h"
}

#include <stdio.h>
#include <string.h>

/* Is this case a row of variant `name`? (setup and describe are shared by an
 * experiment's variants; the launch shape may differ between them) */
static inline bool gm_b_is(const gm_case *c, const char *name)
{
    return strcmp(c->variant->name, name) == 0;
}

/* describe: the launch shape, with registers unknown until setup asks the
 * runtime (describe makes no CUDA call). */
static inline void gm_b_set_shape(gm_case *c, dim3 grid, dim3 block, long long shared_bytes)
{
    c->launch.grid[0] = grid.x;
    c->launch.grid[1] = grid.y;
    c->launch.grid[2] = grid.z;
    c->launch.block[0] = block.x;
    c->launch.block[1] = block.y;
    c->launch.block[2] = block.z;
    c->launch.shared_bytes = shared_bytes;
    c->launch.registers = -1;
}

/* setup: registers per thread and static shared memory as compiled. */
template <typename F>
static gm_status gm_b_query_kernel(gm_case *c, F *fn, gm_error *err)
{
    cudaFuncAttributes attr;
    GM_CUDA(cudaFuncGetAttributes(&attr, fn));
    c->launch.registers = attr.numRegs;
    c->launch.shared_bytes = (long long)attr.sharedSizeBytes;
    return GM_OK;
}

static inline dim3 gm_b_grid(const gm_case *c)
{
    return dim3(c->launch.grid[0], c->launch.grid[1], c->launch.grid[2]);
}

static inline dim3 gm_b_block(const gm_case *c)
{
    return dim3(c->launch.block[0], c->launch.block[1], c->launch.block[2]);
}

#endif

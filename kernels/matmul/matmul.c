/* matmul.c — experiment 8, matrix multiplication tiles in shared memory: the CPU side of its
 * variants.
 *
 * The experiment as data: its description (gm_exp_matmul: the question, the
 * contrast that answers it, the sweep) and its rows (gm_matmul_rows, one per
 * variant), which suite.c lists; describe (what a case launches and must
 * move, from its parameters alone); and the CPU reference the GPU output is
 * checked against.  Plain C, no CUDA; the kernels are in kernels.cu, the
 * address trace in trace.c.
 */
#include "matmul.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the experiment: its description and its rows ------------------------- */

const gm_experiment_def gm_exp_matmul = {
    .id = "matmul",
    .title = "Matrix multiplication: global, shared and constant memory",
    .summary =
        "C = AB for square float matrices, one output per thread, with B read from global "
        "memory, from shared-memory tiles or from constant memory, at 4x4 and 16x16 blocks. "
        "Tiles cut global loads by the tile width, but a 4-wide tile barely pays for its "
        "barriers. Constant memory holds B only up to 64 KiB and serves a warp one address "
        "at a time, so reading a row of B from it is serialised. Padding a tile row by one "
        "word matters only where the tile is accessed down a column (the k-major tile); "
        "double buffering lets the next tile's loads overlap the current tile's arithmetic.",
    .source =
        "Lab 4, Geavanceerde Computerarchitectuur (KU Leuven), part 2 (B in global, "
        "shared and constant memory, BLOCK_SIZE 4 and 16); Part 17: Memory Hierarchy "
        "(CUDA course module) (naive to tiled)",
    .sweep_param = "n",
    .sweep_log2 = true,
    .series_param = "block",
    .bandwidth_bound = false,
    .baseline_variant = "naive",
    .question =
        "At the same tile size, does staging tiles of A and B in shared memory beat "
        "reading them from global memory?",
    .contrast_a = "naive",
    .contrast_b = "tiled",
    .contrast_at = "block=16",
    .contrast_counter = "ld_sectors",
};

/* The lab report's sizes (N 8..768) at its block sizes 4 and 16, plus 1536
 * (7.2 GFLOP, a few ms naive) where the tile variants are compared; constant
 * memory holds B up to n = 128, larger n are recorded as not run. */
#define S_MM_SEED {"n", GM_VALUES(8, 16, 32, 64, 96, 192, 384, 768, 1536), GM_VALUES(96, 192)}
#define S_MM_SEED_BLOCK {"block", GM_VALUES(4, 16), GM_VALUES(16)}
#define S_MM_TILE {"n", GM_VALUES(384, 768, 1536), GM_VALUES(192)}
#define S_MM_TILE_BLOCK {"block", GM_VALUES(16), GM_AS_FULL}

/* The constant variant's reset loads B into __constant__ memory. */
const gm_variant gm_matmul_rows[] = {
    {.experiment = &gm_exp_matmul,
     .name = "naive",
     .layout = "thread (row, col) reads A's row and B's column from global memory: A "
               "broadcast, B's row segment coalesced, n steps",
     .params = {S_MM_SEED, S_MM_SEED_BLOCK},
     GM_FNS(matmul),
     .kind = GM_MATMUL_NAIVE,
     .launch = GM_GPU(matmul_launch_naive),
     .trace = matmul_trace,
     .idempotent = true},
    {.experiment = &gm_exp_matmul,
     .name = "tiled",
     .layout = "block x block tiles of A and B staged in shared memory, two barriers per tile",
     .params = {S_MM_SEED, S_MM_SEED_BLOCK},
     GM_FNS(matmul),
     .kind = GM_MATMUL_TILED,
     .launch = GM_GPU(matmul_launch_tiled),
     .trace = matmul_trace,
     .idempotent = true},
    {.experiment = &gm_exp_matmul,
     .name = "constant",
     .layout = "naive with B in __constant__ memory: a warp reads `block` different words of "
               "a row of B per step",
     .params = {S_MM_SEED, S_MM_SEED_BLOCK},
     GM_FNS(matmul),
     .kind = GM_MATMUL_CONSTANT,
     .launch = GM_GPU(matmul_launch_constant),
     .trace = matmul_trace},
    {.experiment = &gm_exp_matmul,
     .name = "tiled_padded",
     .layout = "tiled with [T][T+1] shared arrays; the access pattern is already "
               "conflict-free",
     .params = {S_MM_TILE, S_MM_TILE_BLOCK},
     GM_FNS(matmul),
     .kind = GM_MATMUL_TILED_PADDED,
     .launch = GM_GPU(matmul_launch_tiled_padded),
     .trace = matmul_trace,
     .idempotent = true},
    {.experiment = &gm_exp_matmul,
     .name = "tiled_kmajor",
     .layout = "A's tile stored k-major (as[k][row]): each warp store strides 16 words, an "
               "8-way bank conflict",
     .params = {S_MM_TILE, S_MM_TILE_BLOCK},
     GM_FNS(matmul),
     .kind = GM_MATMUL_TILED_KMAJOR,
     .launch = GM_GPU(matmul_launch_tiled_kmajor),
     .trace = matmul_trace,
     .idempotent = true},
    {.experiment = &gm_exp_matmul,
     .name = "tiled_kmajor_padded",
     .layout = "k-major A tile in [T][T+1]: the 17-word stride spreads the stores over the "
               "banks",
     .params = {S_MM_TILE, S_MM_TILE_BLOCK},
     GM_FNS(matmul),
     .kind = GM_MATMUL_TILED_KMAJOR_PADDED,
     .launch = GM_GPU(matmul_launch_tiled_kmajor_padded),
     .trace = matmul_trace,
     .idempotent = true},
    {.experiment = &gm_exp_matmul,
     .name = "double_buffer",
     .layout = "tiled with two buffers per operand: the next tile's loads are in flight during "
               "the current tile's arithmetic; one barrier per tile",
     .params = {S_MM_TILE, S_MM_TILE_BLOCK},
     GM_FNS(matmul),
     .kind = GM_MATMUL_DOUBLE_BUFFER,
     .launch = GM_GPU(matmul_launch_double_buffer),
     .trace = matmul_trace,
     .idempotent = true},
};
const size_t gm_matmul_rows_len = sizeof gm_matmul_rows / sizeof gm_matmul_rows[0];

/* ---- describe ------------------------------------------------------------- */

gm_status matmul_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0), bs = gm_case_param(c, "block", 16);
    if (n < 1 || n > 8192 || (bs != 4 && bs != 8 && bs != 16 && bs != 32))
        return gm_fail(err, GM_ERR_VALUE,
                       "matmul/%s: n = %lld, block = %lld: need n in 1..8192 and block 4, 8, 16 "
                       "or 32",
                       c->variant->name, n, bs);
    /* shared arrays per block, floats: two T x T tiles, +1 column when padded,
     * two of each when double-buffered */
    long long t = bs, words = 0;
    if (c->variant->kind == GM_MATMUL_TILED || c->variant->kind == GM_MATMUL_TILED_KMAJOR)
        words = 2 * t * t;
    else if (c->variant->kind == GM_MATMUL_TILED_PADDED ||
             c->variant->kind == GM_MATMUL_TILED_KMAJOR_PADDED)
        words = 2 * t * (t + 1);
    else if (c->variant->kind == GM_MATMUL_DOUBLE_BUFFER)
        words = 4 * t * t;
    else if (c->variant->kind != GM_MATMUL_NAIVE && c->variant->kind != GM_MATMUL_CONSTANT)
        return gm_fail(err, GM_ERR_VALUE, "matmul: unknown variant '%s'", c->variant->name);
    unsigned g = (unsigned)((n + bs - 1) / bs);
    gm_case_set_shape(c, g, g, 1, (unsigned)bs, (unsigned)bs, 1, 4 * words);
    if (words)
        snprintf(c->kernel, sizeof c->kernel, "matmul_kernel_%s<%lld>", c->variant->name, bs);
    else
        snprintf(c->kernel, sizeof c->kernel, "matmul_kernel_%s", c->variant->name);
    c->bytes_read = 2 * 4 * n * n;    /* A and B once */
    c->bytes_written = 4 * n * n;     /* C once */
    c->flops = 2 * n * n * n;
    if (c->variant->kind == GM_MATMUL_CONSTANT)
        snprintf(c->note, sizeof c->note,
                 "B (%lld bytes of the 65536 constant memory holds) is copied into __constant__ "
                 "memory by reset, outside the timing; a warp reads %lld different words of it "
                 "per step",
                 4 * n * n, bs);
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

void gm_ref_matmul(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int k = 0; k < n; ++k)
                s += (double)a[(size_t)i * n + k] * b[(size_t)k * n + j];
            c[(size_t)i * n + j] = (float)s;
        }
}

void gm_ref_matmul_bt_range(const float *a, const float *bt, float *c, int n, size_t begin,
                            size_t end)
{
    for (size_t e = begin; e < end; ++e) {
        const float *ra = a + e / (size_t)n * n, *rb = bt + e % (size_t)n * n;
        double s = 0.0;
        for (int k = 0; k < n; ++k)
            s += (double)ra[k] * rb[k];
        c[e] = (float)s;
    }
}

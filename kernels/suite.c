/* suite.c — the experiment suite as data: what each experiment demonstrates
 * and one row per kernel variant (see suite.h for the life of a case).
 *
 * Adding a variant: write its launch function in the experiment's file,
 * declare it below, add a row.  `gpumem-report list`, --only/--skip, the
 * table tests (tests/test_suite.c), the GPU validation (tests/gpu/
 * suite_validate.c) and the report follow from the table.
 *
 * Experiments 1-7 are in kernels/exp_*.cu of the first half of the suite;
 * experiments 8-14 have their own marked sections in each part of this file.
 */
#include "suite.h"

#include <string.h>

/* ---- parameters and cases ------------------------------------------------- */

int gm_values_len(const long long *v)
{
    for (int i = 0; i < GM_MAX_VALUES; i++)
        if (v[i] == GM_END)
            return i;
    return -1;
}

/* An omitted .quick initialiser is all zeros with no GM_END: that (or an
 * explicit leading GM_END) means "same as full". */
const long long *gm_sweep_values(const gm_sweep *s, bool quick)
{
    if (quick && s->quick[0] != GM_END && gm_values_len(s->quick) > 0)
        return s->quick;
    return s->full;
}

long long gm_case_param(const gm_case *c, const char *name, long long fallback)
{
    for (int i = 0; i < c->n_params; i++)
        if (strcmp(c->params[i].name, name) == 0)
            return c->params[i].value;
    return fallback;
}

static int S_n_params(const gm_variant *v)
{
    int n = 0;
    while (n < GM_MAX_PARAMS && v->params[n].name)
        n++;
    return n;
}

size_t gm_variant_cases(const gm_variant *v, bool quick, gm_case *out, size_t max)
{
    int np = S_n_params(v);
    const long long *vals[GM_MAX_PARAMS];
    int len[GM_MAX_PARAMS];
    size_t total = 1;
    for (int p = 0; p < np; p++) {
        vals[p] = gm_sweep_values(&v->params[p], quick);
        len[p] = gm_values_len(vals[p]);
        if (len[p] <= 0)
            return 0;   /* an unterminated or empty list: tests/test_suite.c reports it */
        total *= (size_t)len[p];
    }
    if (!out)
        return total;
    size_t n = total < max ? total : max;
    for (size_t k = 0; k < n; k++) {
        gm_case *c = &out[k];
        memset(c, 0, sizeof *c);
        c->variant = v;
        c->quick = quick;
        c->n_params = np;
        c->launch.registers = -1;
        c->flops = -1;
        /* Mixed radix, last parameter fastest. */
        size_t rest = k;
        for (int p = np - 1; p >= 0; p--) {
            c->params[p].name = v->params[p].name;
            c->params[p].value = vals[p][rest % (size_t)len[p]];
            rest /= (size_t)len[p];
        }
    }
    return n;
}

const gm_experiment_def *gm_experiment_find(const char *id)
{
    for (size_t i = 0; i < gm_experiments_len; i++)
        if (strcmp(gm_experiments[i]->id, id) == 0)
            return gm_experiments[i];
    return NULL;
}

/* ---- the functions each experiment file exports --------------------------- */

/* Each experiment shares describe/setup/reset/check/teardown among its
 * variants; each variant has its own launch function. */
#define GM_EXPERIMENT_FNS(p)                                                      \
    gm_status p##_describe(gm_case *c, gm_error *err);                            \
    gm_status p##_setup(gm_case *c, gm_error *err);                               \
    gm_status p##_reset(gm_case *c, cudaStream_t s, gm_error *err);               \
    gm_status p##_check(gm_case *c, gm_check *out, gm_error *err);                \
    void p##_teardown(gm_case *c)
#define GM_LAUNCH_FN(name) gm_status name(gm_case *c, cudaStream_t s, gm_error *err)
/* The five shared functions in a row. */
#define GM_FNS(p)                                                                 \
    .describe = p##_describe, .setup = p##_setup, .reset = p##_reset,             \
    .check = p##_check, .teardown = p##_teardown

/* exp_coalescing.cu */
GM_EXPERIMENT_FNS(coalescing);
GM_LAUNCH_FN(coalescing_launch_stride);
GM_LAUNCH_FN(coalescing_launch_float2);
GM_LAUNCH_FN(coalescing_launch_float4);

/* ---- experiments 8-14: declarations ---- */

/* ---- experiment descriptions ---------------------------------------------- */

static const gm_experiment_def S_coalescing = {
    .id = "coalescing",
    .title = "Coalesced vs strided reads",
    .summary =
        "Every variant gathers the same N floats into a contiguous output, each input "
        "element read once, so the useful work is identical; only the order in which a "
        "warp's 32 threads touch memory changes. With a stride of s elements the 32 "
        "4-byte loads of a warp land in min(32, 4s) different 32-byte sectors instead of "
        "4, so DRAM and L2 move up to 8 times the bytes the kernel uses. The float2 and "
        "float4 variants read the same array contiguously with 8- and 16-byte loads: "
        "fewer instructions and more bytes in flight per thread.",
    .source = "001 (sectors per request), 004 (strided vs coalesced access)",
    .sweep_param = "stride",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "stride",
};

/* ---- experiments 8-14: descriptions ---- */

const gm_experiment_def *const gm_experiments[] = {
    &S_coalescing,
    /* ---- experiments 8-14 ---- */
};
const size_t gm_experiments_len = sizeof gm_experiments / sizeof gm_experiments[0];

/* ---- the table: one row per variant --------------------------------------- */

/* Sizes: N = 2^25 floats (128 MiB read, 128 MiB written per launch, about
 * 0.1 ms at H100 copy bandwidth); --quick N = 2^22. */
#define S_COAL_N {"n", GM_VALUES(1 << 25), GM_VALUES(1 << 22)}

const gm_variant gm_suite[] = {
    /* 1. coalescing */
    {.experiment = &S_coalescing,
     .name = "stride",
     .layout = "thread i reads float in[(i mod (N/s))*s + i div (N/s)]: a warp's 32 4-byte "
               "loads are s*4 bytes apart; the grid still reads every element once",
     .params = {S_COAL_N, {"stride", GM_VALUES(1, 2, 4, 8, 16, 32), GM_VALUES(1, 4, 32)}},
     GM_FNS(coalescing),
     .launch = coalescing_launch_stride,
     .idempotent = true},
    {.experiment = &S_coalescing,
     .name = "float2",
     .layout = "thread i reads float2 in[2i..2i+1]: a warp reads 256 contiguous bytes with "
               "8-byte loads",
     .params = {S_COAL_N, {"stride", GM_VALUES(1)}},
     GM_FNS(coalescing),
     .launch = coalescing_launch_float2,
     .idempotent = true},
    {.experiment = &S_coalescing,
     .name = "float4",
     .layout = "thread i reads float4 in[4i..4i+3]: a warp reads 512 contiguous bytes with "
               "16-byte loads",
     .params = {S_COAL_N, {"stride", GM_VALUES(1)}},
     GM_FNS(coalescing),
     .launch = coalescing_launch_float4,
     .idempotent = true},

    /* ---- experiments 8-14 ---- */
};
const size_t gm_suite_len = sizeof gm_suite / sizeof gm_suite[0];

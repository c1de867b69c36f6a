/* claims.c — the source documents' claims as data, and their verdicts (claims.h). */
#include "claims.h"

#include "../core/catalog.h"
#include "../core/escape.h"
#include "../core/fmt.h"
#include "../core/say.h"
#include "../core/slug.h"
#include "contrast.h"
#include "sources.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the claims ----------------------------------------------------------- */

/* the documents by their titles (sources.c: gm_sources, the references) */
#define T_ART "Memory coalescing"
#define T_NOTES "Cache lines, sectors and coalescing"
#define T_DP "Optimizing Memory Access Efficiency in CUDA Kernel via Data Layout Technique"
#define T_LAB "Geavanceerde Computerarchitectuur: Lab 4"
#define T_MOD "Part 17: Memory Hierarchy"
#define NOT_STATED "not stated"
#define V100 "NVIDIA Tesla V100"
#define RTX3090 "NVIDIA GeForce RTX 3090"
#define INF INFINITY

const gm_claim gm_claims[] = {
    /* [1] Memory coalescing (article) */
    {"grid3d-sectors", T_ART,
     "Walking an x-major 3D grid along z, each thread of a warp lands in its own memory segment: "
     "about 32 transactions per warp instead of one.",
     "about 32 per warp", NOT_STATED, "grid3d", GM_CLAIM_COUNTER, "xmajor", NULL, NULL, NULL,
     "ld_spr", 32, 32, NULL, false},
    {"grid3d-time", T_ART, "The wrong layout of the 3D grid alone can cost up to 32 times the time.",
     "up to 32×", NOT_STATED, "grid3d", GM_CLAIM_RATIO, "xmajor", "zmajor", NULL, NULL, "ld_spr",
     2, 32, NULL, false},
    {"matvec-thread", T_ART,
     "With a thread per row of a matrix-vector product, column-major storage coalesces and "
     "row-major does not.",
     "column-major faster (no figure)", NOT_STATED, "matvec", GM_CLAIM_RATIO, "thread_rowmajor",
     "thread_colmajor", NULL, NULL, "ld_spr", 1.05, INF, NULL, false},
    {"matvec-warp", T_ART,
     "With a warp per row, row-major storage is read coalesced: a warp's loads are 128 "
     "contiguous bytes, 4 sectors.",
     "coalesced (4 sectors per request)", NOT_STATED, "matvec", GM_CLAIM_COUNTER, "warp_rowmajor",
     NULL, NULL, NULL, "ld_spr", 4, 4, NULL, false},
    {"matvec-warp-colmajor", T_ART,
     "With a warp per row, column-major storage would be a disaster.", "uncoalesced (no figure)",
     NOT_STATED, "matvec", GM_CLAIM_NONE, NULL, NULL, NULL, NULL, NULL, NAN, NAN,
     "the suite has no warp-per-row kernel over a column-major matrix", false},
    {"aos-soa", T_ART,
     "When a step needs only some fields of each particle, separate arrays (SoA) load only "
     "those, coalesced, and beat an array of structures (AoS).",
     "SoA faster (no figure)", NOT_STATED, "aos_soa", GM_CLAIM_RATIO, "aos", "soa", "fields=4",
     NULL, "ld_spr", 1.05, INF, NULL, false},
    {"spmv-jds-csr", T_ART,
     "Sorting rows into jagged diagonals (JDS) makes neighbouring rows' entries contiguous and "
     "improves on CSR with a thread per row.",
     "JDS faster (no figure)", NOT_STATED, "spmv", GM_CLAIM_RATIO, "csr_thread", "jds", NULL, NULL,
     "ld_sectors", 1.05, INF, NULL, false},
    {"spmv-jds-ell", T_ART,
     "ELLPACK coalesces but reads the padding of every short row; JDS avoids most of that "
     "padding.",
     "JDS faster (no figure)", NOT_STATED, "spmv", GM_CLAIM_RATIO, "ell", "jds", NULL, NULL,
     "dram_bytes", 1.05, INF, NULL, false},
    {"conv-constant", T_ART,
     "Filter coefficients every thread of a warp reads at the same address belong in constant "
     "memory, which broadcasts them.",
     "constant faster (no figure)", NOT_STATED, "conv", GM_CLAIM_RATIO, "global", "constant", NULL,
     NULL, "ld_requests", 1.05, INF, NULL, false},
    {"conv-shared", T_ART,
     "Staging the image tile with its halo in shared memory removes the redundant global reads "
     "of overlapping neighbourhoods.",
     "shared tile faster (no figure)", NOT_STATED, "conv", GM_CLAIM_RATIO, "constant", "shared",
     NULL, NULL, "ld_requests", 1.05, INF, NULL, false},
    {"texture", T_ART,
     "For scattered reads with spatial locality (semi-Lagrangian advection), the texture cache "
     "beats plain global loads.",
     "texture faster (no figure)", NOT_STATED, "texture", GM_CLAIM_RATIO, "global", "texture",
     NULL, NULL, "dram_bytes", 1.05, INF, NULL, false},

    /* [2] Cache lines, sectors and coalescing (notes) */
    {"align-0", T_NOTES, "A warp's 128-byte read that starts on a line boundary touches 4 sectors.",
     "4 sectors (offset 0)", NOT_STATED, "alignment", GM_CLAIM_COUNTER, "scalar@offset=0", NULL,
     NULL, NULL, "ld_spr", 4, 4, NULL, false},
    {"align-96", T_NOTES,
     "Starting 96 bytes in, the read crosses a line on a sector boundary: two lines, still 4 "
     "sectors.",
     "4 sectors (offset 96)", NOT_STATED, "alignment", GM_CLAIM_COUNTER, "scalar@offset=96", NULL,
     NULL, NULL, "ld_spr", 4, 4, NULL, false},
    {"align-100", T_NOTES, "Starting 100 bytes in, the read crosses a sector too: 5 sectors.",
     "5 sectors (offset 100)", NOT_STATED, "alignment", GM_CLAIM_COUNTER, "scalar@offset=100",
     NULL, NULL, NULL, "ld_spr", 5, 5, NULL, false},
    {"align-line-time", T_NOTES,
     "Crossing a line costs time even when no sector is wasted (offset 96 against 0).",
     "slower (no figure)", NOT_STATED, "alignment", GM_CLAIM_RATIO, "scalar@offset=96",
     "scalar@offset=0", NULL, NULL, "ld_spr", 1.02, INF, NULL, false},
    {"uncoalesced-spr", T_NOTES,
     "Strided (uncoalesced) access shows in the profiler as more than 4 sectors per request.",
     "more than 4 sectors per request", NOT_STATED, "coalescing", GM_CLAIM_COUNTER, "stride",
     NULL, "stride=2|4|8|16|32", NULL, "ld_spr", 4.01, INF, NULL, false},

    /* [3] Optimizing Memory Access Efficiency in CUDA Kernel via Data Layout Technique (paper) */
    {"dp-diagonal", T_DP,
     "Storing the dynamic-programming table by diagonals makes the CUDA kernel 1.8 to 2.04 times "
     "faster than a row-major table, at every size up to n = 1024.",
     "1.8–2.04× (mean 1.9×)", V100, "dp", GM_CLAIM_RATIO, "rowmajor", "diagonal", NULL, NULL,
     "ld_spr", 1.8, 2.04, NULL, true},
    {"dp-diagonal-1024", T_DP, "At n = 1024 the diagonal layout halves the kernel time.",
     "542 → 272 ms (1.99×)", V100, "dp", GM_CLAIM_RATIO, "rowmajor", "diagonal", "n=1024", NULL,
     "ld_spr", 1.99, 1.99, NULL, false},
    {"dp-gpu-cpu-1024", T_DP,
     "At n = 1024 the (row-major) CUDA version beats the serial CPU version 2.4 times.",
     "1287 vs 542 ms (2.4×)", V100 "; CPU not stated", "dp", GM_CLAIM_RATIO, "cpu_serial",
     "rowmajor", "n=1024", NULL, NULL, 2.37, 2.37, NULL, false},
    {"dp-breakeven", T_DP,
     "Below a break-even size one CPU thread is faster; the GPU wins from about n = 218 matrices "
     "on.",
     "n ≈ 218", V100 "; CPU not stated", "dp", GM_CLAIM_BREAKEVEN, "cpu_serial", "rowmajor",
     NULL, "n", NULL, 218, 218, NULL, false},
    {"dp-launch", T_DP, "Kernel launch overhead is fixed at about 0.4 ms.", "≈ 0.4 ms", V100,
     "dp", GM_CLAIM_NONE, NULL, NULL, NULL, NULL, NULL, NAN, NAN,
     "the suite times whole kernels; it does not separate launch overhead", false},
    {"dp-block", T_DP,
     "A 16 × 16 block per diagonal element cuts kernel time by 41%, and 2D blocks by 23% more.",
     "−41%, then −23%", V100, "dp", GM_CLAIM_NONE, NULL, NULL, NULL, NULL, NULL, NAN, NAN,
     "the suite's DP kernels use one thread per cell; it has no such block decompositions", false},

    /* [4] Geavanceerde Computerarchitectuur: Lab 4 (lab report) */
    {"rgb-planar", T_LAB,
     "Inverting the red channel of a planar image is 1.5 to 1.7 times faster than of an "
     "interleaved one, for 128 to 512 threads per block at 1, 2 and 4 times 960 × 1280 pixels.",
     "1.5–1.7×", NOT_STATED, "rgb", GM_CLAIM_RATIO, "interleaved", "planar",
     "scale=1|2|4,block=128|256|512", NULL, "ld_spr", 1.5, 1.7, NULL, false},
    {"rgb-best-block", T_LAB,
     "The planar kernel is fastest with 128 to 512 threads per block; 64 and 1024 are slower.",
     "best block 128–512", NOT_STATED, "rgb", GM_CLAIM_BEST_IN, "planar", NULL, "scale=1|2|4",
     "block", NULL, 128, 512, NULL, false},
    {"matmul-shared-16", T_LAB,
     "With BLOCK_SIZE 16 at N = 768, the shared-memory kernel is about 1.6 times faster than "
     "the global one.",
     "1.378 vs 0.848 ms (1.62×)", NOT_STATED, "matmul", GM_CLAIM_RATIO, "naive", "tiled",
     "block=16,n=768", NULL, "ld_sectors", 1.62, 1.62, NULL, false},
    {"matmul-shared-4", T_LAB,
     "With BLOCK_SIZE 4, the shared-memory kernel is slower than the global one for larger "
     "matrices.",
     "2.84 vs 3.47 ms at N = 768 (0.82×)", NOT_STATED, "matmul", GM_CLAIM_RATIO, "naive", "tiled",
     "block=4,n=768", NULL, "ld_sectors", 0.82, 0.82, NULL, false},
    {"matmul-constant", T_LAB,
     "B in constant memory falls behind the global kernel as N grows: 4.3 times slower at "
     "N = 96 with BLOCK_SIZE 16.",
     "0.0401 vs 0.0094 ms (4.3× slower)", NOT_STATED, "matmul", GM_CLAIM_RATIO, "constant",
     "naive", "block=16,n=96", NULL, "ld_requests", 4.27, 4.27, NULL, false},
    {"matmul-constant-limit", T_LAB, "From N = 192 on, B no longer fits in constant memory.",
     "64 KB limit", NOT_STATED, "matmul", GM_CLAIM_NONE, NULL, NULL, NULL, NULL, NULL, NAN, NAN,
     "arithmetic, not a measurement (192 × 192 floats are 144 KiB); the suite records those "
     "runs as not run", false},

    /* [5] Part 17: Memory Hierarchy (course module) */
    {"strided-5-10", T_MOD, "Coalesced access can be 5 to 10 times faster than strided access.",
     "5–10×", NOT_STATED, "coalescing", GM_CLAIM_RATIO, "stride@stride=32", "stride@stride=1",
     NULL, NULL, "ld_spr", 5, 10, NULL, false},
    {"rowcol-2d", T_MOD,
     "Over a 2D array, row-major access reaches 450 GB/s and column-major 90 GB/s.",
     "450 vs 90 GB/s (5×)", NOT_STATED, "traversal2d", GM_CLAIM_RATIO, "col_mapping",
     "row_mapping", NULL, NULL, "ld_spr", 5, 5, NULL, false},
    {"peak-90", T_MOD,
     "Good access patterns raise bandwidth use from about 30% to over 90% of the theoretical "
     "peak.",
     "over 90% of peak", NOT_STATED, "coalescing", GM_CLAIM_PEAK_PCT, "float4", NULL, NULL, NULL,
     NULL, 90, INF, NULL, false},
    {"bank-padding", T_MOD,
     "Padding a 32 × 32 shared array to 32 × 33 lifts shared-memory bandwidth from 180 to "
     "1300 GB/s.",
     "180 → 1300 GB/s (7.2×)", NOT_STATED, "banks", GM_CLAIM_RATIO, "unpadded@stride=32",
     "padded@stride=32", NULL, NULL, "shared_wpi", 7.2, 7.2, NULL, false},
    {"matmul-tiled-8", T_MOD,
     "Shared-memory tiles make matrix multiplication 8 times faster than the naive kernel.",
     "50 → 400 GFLOPS (8×)", RTX3090, "matmul", GM_CLAIM_RATIO, "naive", "tiled",
     "block=16,n=1536", NULL, "ld_sectors", 8, 8, NULL, false},
    {"matmul-padded", T_MOD,
     "Padding the shared tiles (bank-conflict-free) adds a further 12.5%.",
     "400 → 450 GFLOPS (1.125×)", RTX3090, "matmul", GM_CLAIM_RATIO, "tiled", "tiled_padded",
     "block=16,n=1536", NULL, "shared_wpi", 1.125, 1.125, NULL, false},
    {"matmul-overall", T_MOD,
     "Memory-hierarchy optimisation of matrix multiplication gains 8 to 10 times over naive.",
     "8–10×", RTX3090, "matmul", GM_CLAIM_RATIO, "naive", "double_buffer", "block=16,n=1536",
     NULL, "ld_sectors", 8, 10, NULL, false},
    {"shared-vs-global", T_MOD, "Shared memory is 10 to 100 times faster than global memory.",
     "10–100×", NOT_STATED, NULL, GM_CLAIM_NONE, NULL, NULL, NULL, NULL, NULL, NAN, NAN,
     "the suite measures no shared-only against global-only bandwidth", false},
    {"matmul-85-peak", T_MOD, "The optimised matrix multiplication reaches 85% of the peak.",
     "85% of peak", RTX3090, "matmul", GM_CLAIM_NONE, NULL, NULL, NULL, NULL, NULL, NAN, NAN,
     "the suite does not measure the arithmetic peak", false},
};

const size_t gm_claims_len = sizeof gm_claims / sizeof gm_claims[0];

/* ---- judging -------------------------------------------------------------- */

const char *gm_verdict_name(gm_verdict v)
{
    switch (v) {
    case GM_VERDICT_HOLDS: return "holds";
    case GM_VERDICT_DIRECTION: return "holds in direction, not size";
    case GM_VERDICT_NOT: return "does not hold";
    case GM_VERDICT_UNTESTED: break;
    }
    return "not tested here";
}

static const gm_section *S_find(const gm_sections *ss, const char *id)
{
    for (size_t i = 0; id && i < ss->n; i++)
        if (ss->v[i].exp && ss->v[i].exp->id && !strcmp(ss->v[i].exp->id, id))
            return &ss->v[i];
    return NULL;
}

static int S_dbl_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* Median of v[0..n) (sorts v). */
static double S_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, S_dbl_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void S_untested(gm_claim_result *o, const char *why)
{
    o->verdict = GM_VERDICT_UNTESTED;
    gm_buf_puts(&o->measured_md, "—");
    gm_say(&o->why_md, "{}.", GM_TEXT(why));
}

/* "`a` (p=v)": a side as its selector names it, to pass as GM_BUF. */
static gm_buf S_side(const char *sel)
{
    gm_buf b = GM_BUF_INIT;
    gm_selector_md(&b, sel);
    return b;
}

/* A parameter value or size as the tables give it: integers as counts. */
static gm_say_arg S_num(double v, int sig)
{
    if (v == floor(v) && fabs(v) < 1e15)
        return GM_COUNT(v);
    return GM_NUM(v, sig);
}

/* A ratio as gm_ratio_fmt writes it, to pass as GM_BUF. */
static gm_buf S_ratio_md(double x)
{
    gm_buf b = GM_BUF_INIT;
    gm_ratio_fmt(&b, x);
    return b;
}

/* A counter's value as gm_counter_fmt writes it, to pass as GM_BUF. */
static gm_buf S_counter_md(const char *kind, double v)
{
    gm_buf b = GM_BUF_INIT;
    gm_counter_fmt(&b, kind, v);
    return b;
}

static double S_num_param(const gm_run *r, const char *p)
{
    const gm_param *q = gm_run_param(r, p);
    return q ? gm_value_num(&q->value) : NAN;
}

static void S_ratio(const gm_claim *c, const gm_results *res, const gm_section *s,
                    gm_claim_result *o)
{
    gm_pair *p;
    size_t n = gm_pairs(s, c->a, c->b, c->filter, &p);
    if (!n) {
        free(p);
        S_untested(o, "no passed runs of both sides at matching parameters in this file");
        return;
    }
    double *r = gm_xcalloc(n, sizeof *r);
    for (size_t i = 0; i < n; i++)
        r[i] = gm_run_median_ms(p[i].a) / gm_run_median_ms(p[i].b);
    double lo = r[0], hi = r[0];
    for (size_t i = 1; i < n; i++) {
        lo = fmin(lo, r[i]);
        hi = fmax(hi, r[i]);
    }
    /* the pair whose ratio is nearest the median explains it */
    double *sorted = gm_xcalloc(n, sizeof *sorted);
    memcpy(sorted, r, n * sizeof *r);
    double m = S_median(sorted, n);
    /* the pair nearest the median explains it, a profiled one if there is one */
    size_t near = n;
    for (int profiled = 1; profiled >= 0 && near == n; profiled--)
        for (size_t i = 0; i < n; i++) {
            if (profiled && !(p[i].a->n_metrics && p[i].b->n_metrics))
                continue;
            if (near == n || fabs(r[i] - m) < fabs(r[near] - m))
                near = i;
        }
    /* One number per contrast: a claim on the experiment's own contrast is
     * judged at the summary's pair, unless it names its sizes (a filter) or
     * speaks of every size; then its row gives the summary's figure too. */
    const gm_experiment *e = s->exp;
    gm_contrast sc;
    bool same = e && e->contrast_a && e->contrast_b && !strcmp(c->a, e->contrast_a) &&
                !strcmp(c->b, e->contrast_b) && gm_contrast_find(s, &sc);
    size_t at_k = n;   /* the summary's pair among p[] */
    for (size_t i = 0; same && i < n; i++)
        if (p[i].a == sc.pair.a && p[i].b == sc.pair.b)
            at_k = i;
    bool at_point = same && at_k < n && !c->filter && !c->each_size;
    if (at_point) {
        m = r[at_k];
        near = at_k;
    }
    o->measured = m;
    gm_buf *md = &o->measured_md;
    gm_buf mr = S_ratio_md(m);
    if (at_point && n > 1) {
        gm_buf at = GM_BUF_INIT;
        gm_pair_at_md(&at, c->a, c->b, &p[at_k]);
        if (n == 2) {
            size_t other = at_k == 0 ? 1 : 0;
            gm_buf oat = GM_BUF_INIT;
            gm_pair_at_md(&oat, c->a, c->b, &p[other]);
            gm_buf ro = S_ratio_md(r[other]);
            gm_say(md, "{} at {}, the summary's pair ({} at {})", GM_BUF(&mr), GM_BUF(&at),
                   GM_BUF(&ro), GM_BUF(&oat));
            gm_buf_free(&ro);
            gm_buf_free(&oat);
        } else {
            gm_buf x = S_ratio_md(lo), y = S_ratio_md(hi);
            if (strcmp(x.data, y.data) == 0)
                gm_say(md, "{} at {}, the summary's pair ({} points in all, each {})",
                       GM_BUF(&mr), GM_BUF(&at), GM_INT((long long)n), GM_BUF(&x));
            else
                gm_say(md, "{} at {}, the summary's pair ({} points in all: {}–{})", GM_BUF(&mr),
                       GM_BUF(&at), GM_INT((long long)n), GM_BUF(&x), GM_BUF(&y));
            gm_buf_free(&x);
            gm_buf_free(&y);
        }
        gm_buf_free(&at);
    } else if (n > 1) {
        gm_buf x = S_ratio_md(lo), y = S_ratio_md(hi);
        gm_say(md, "{} (median of {}; {}–{})", GM_BUF(&mr), GM_INT((long long)n), GM_BUF(&x),
               GM_BUF(&y));
        gm_buf_free(&x);
        gm_buf_free(&y);
    } else {
        gm_say(md, "{} ({} vs {})", GM_BUF(&mr), GM_MS(gm_run_median_ms(p[0].a)),
               GM_MS(gm_run_median_ms(p[0].b)));
    }
    gm_buf_free(&mr);
    if (same && !at_point && !(n == 1 && at_k == 0)) {
        /* judged elsewhere than the summary's pair: say where that is, and why */
        gm_buf at = GM_BUF_INIT;
        gm_pair_at_md(&at, e->contrast_a, e->contrast_b, &sc.pair);
        gm_buf sr = S_ratio_md(sc.time_ratio);
        gm_say(md, "; the summary's {} is at {}, {}", GM_BUF(&sr), GM_BUF(&at),
               GM_LIT(at_k < n ? "one of these points" : "outside the sizes the claim names"));
        gm_buf_free(&sr);
        gm_buf_free(&at);
    }
    bool up = c->lo >= 1;
    bool dir = up ? m >= 1.05 : m <= 1 / 1.05;
    bool size = m >= c->lo / 1.25 && m <= c->hi * 1.25;
    o->verdict = dir && size ? GM_VERDICT_HOLDS : dir ? GM_VERDICT_DIRECTION : GM_VERDICT_NOT;
    gm_buf sa = S_side(c->a), sb = S_side(c->b);
    gm_buf at = GM_BUF_INIT;
    gm_pair_at_md(&at, c->a, c->b, &p[near]);
    if (at.len)
        gm_say(&o->why_md, "{} against {} at {}: ", GM_BUF(&sa), GM_BUF(&sb), GM_BUF(&at));
    else
        gm_say(&o->why_md, "{} against {}: ", GM_BUF(&sa), GM_BUF(&sb));
    gm_buf_free(&at);
    gm_buf_free(&sa);
    gm_buf_free(&sb);
    gm_pair_why_md(&o->why_md, res, p[near].a, c->a, p[near].b, c->b, c->counter);
    free(sorted);
    free(r);
    free(p);
}

static void S_counter(const gm_claim *c, const gm_section *s, gm_claim_result *o)
{
    double *v = gm_xcalloc(s->n_runs + 1, sizeof *v);
    size_t n = 0;
    const gm_run *one = NULL;
    for (size_t i = 0; i < s->n_runs; i++) {
        const gm_run *r = s->runs[i];
        if (!gm_run_passed(r) || !gm_sel_match(r, c->a) || !gm_filter_match(r, c->filter))
            continue;
        double x = gm_counter(r, c->counter);
        if (isfinite(x)) {
            v[n++] = x;
            one = r;
        }
    }
    if (!n) {
        free(v);
        S_untested(o, "no passed, profiled run of that layout in this file");
        return;
    }
    double lo = v[0], hi = v[0];
    for (size_t i = 1; i < n; i++) {
        lo = fmin(lo, v[i]);
        hi = fmax(hi, v[i]);
    }
    double m = S_median(v, n);
    o->measured = m;
    gm_buf cm = S_counter_md(c->counter, m);
    gm_say(&o->measured_md, "{} {}", GM_BUF(&cm), GM_LIT(gm_counter_label(c->counter)));
    gm_buf_free(&cm);
    if (n > 1 && lo != hi) {
        gm_buf cl = S_counter_md(c->counter, lo), ch = S_counter_md(c->counter, hi);
        gm_say(&o->measured_md, " (median of {} runs; {}–{})", GM_INT((long long)n), GM_BUF(&cl),
               GM_BUF(&ch));
        gm_buf_free(&cl);
        gm_buf_free(&ch);
    }
    bool ok = m >= c->lo * 0.95 && m <= c->hi * 1.05;
    o->verdict = ok ? GM_VERDICT_HOLDS : GM_VERDICT_NOT;
    gm_buf side = S_side(c->a);
    double sec = gm_run_metric_num(one, GM_M_LD_SECTORS), req = gm_run_metric_num(one, GM_M_LD_REQUESTS);
    if (!strcmp(c->counter, "ld_spr") && isfinite(sec) && isfinite(req))
        gm_say(&o->why_md, "{}: the profiler counts {} global-load sectors for {} requests{}.",
               GM_BUF(&side), GM_COUNT(sec), GM_COUNT(req),
               GM_LIT(n > 1 ? " in one of its runs" : ""));
    else
        gm_say(&o->why_md, "{}: as the profiler counts it.", GM_BUF(&side));
    gm_buf_free(&side);
    free(v);
}

typedef struct {
    gm_pair pair;
    double x;    /* the parameter of side a */
    size_t at;   /* place before sorting */
} S_sized;

static int S_sized_cmp(const void *pa, const void *pb)
{
    const S_sized *a = pa, *b = pb;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

/* Sort pairs by the parameter of side a, stable.  A pair without a number
 * for it would stop an insertion sort where it stands: then that sort, as
 * the result has always been. */
static void S_sort_pairs(gm_pair *p, size_t n, const char *param)
{
    S_sized *v = gm_xmalloc((n ? n : 1) * sizeof *v);
    bool nan = false;
    for (size_t i = 0; i < n; i++) {
        v[i] = (S_sized){p[i], S_num_param(p[i].a, param), i};
        nan = nan || isnan(v[i].x);
    }
    if (!nan) {
        qsort(v, n, sizeof *v, S_sized_cmp);
        for (size_t i = 0; i < n; i++)
            p[i] = v[i].pair;
    } else {
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && S_num_param(p[j - 1].a, param) >
                                            S_num_param(p[j].a, param);
                 j--) {
                gm_pair t = p[j];
                p[j] = p[j - 1];
                p[j - 1] = t;
            }
    }
    free(v);
}

/* The GPU side b against the CPU side a along c->param: where b starts to win. */
static void S_breakeven(const gm_claim *c, const gm_section *s, gm_claim_result *o)
{
    gm_pair *p;
    size_t n = gm_pairs(s, c->a, c->b, c->filter, &p);
    if (n < 2) {
        free(p);
        S_untested(o, "fewer than two sizes with both sides measured in this file");
        return;
    }
    S_sort_pairs(p, n, c->param);
    /* r > 1: the GPU side is faster */
    size_t cross = n;   /* first index from which b wins at every larger size */
    for (size_t i = n; i-- > 0;) {
        double r = gm_run_median_ms(p[i].a) / gm_run_median_ms(p[i].b);
        if (!(r > 1))
            break;
        cross = i;
    }
    double n0 = S_num_param(p[0].a, c->param), n1 = S_num_param(p[n - 1].a, c->param);
    const char *pn = c->param;
    if (cross == n) {
        o->measured = INFINITY;
        gm_say(&o->measured_md, "none up to {}={} (the CPU is faster at the largest size)",
               GM_LIT(pn), S_num(n1, 6));
        o->verdict = GM_VERDICT_NOT;
    } else if (cross == 0) {
        o->measured = n0;
        gm_say(&o->measured_md, "below {}={} (the GPU is faster at every size measured)",
               GM_LIT(pn), S_num(n0, 6));
        o->verdict = n0 <= c->lo * 1.5 ? GM_VERDICT_HOLDS : GM_VERDICT_DIRECTION;
        if (n0 > c->lo / 1.5)
            o->verdict = GM_VERDICT_DIRECTION;
    } else {
        /* interpolate log(ratio) against log(n) between the two sizes around it */
        double xa = log(S_num_param(p[cross - 1].a, pn)), xb = log(S_num_param(p[cross].a, pn));
        double ya = log(gm_run_median_ms(p[cross - 1].a) / gm_run_median_ms(p[cross - 1].b));
        double yb = log(gm_run_median_ms(p[cross].a) / gm_run_median_ms(p[cross].b));
        double x = yb != ya ? xa + (0 - ya) * (xb - xa) / (yb - ya) : xb;
        double m = exp(x);
        o->measured = m;
        gm_say(&o->measured_md, "{} ≈ {} (between {}={} and {})", GM_LIT(pn), S_num(m, 3),
               GM_LIT(pn), S_num(S_num_param(p[cross - 1].a, pn), 6),
               S_num(S_num_param(p[cross].a, pn), 6));
        bool size = m >= c->lo / 1.5 && m <= c->hi * 1.5;
        o->verdict = size ? GM_VERDICT_HOLDS : GM_VERDICT_DIRECTION;
    }
    /* why: how each side grows along the parameter */
    double ca = gm_run_median_ms(p[n - 1].a) / gm_run_median_ms(p[0].a);
    double cb = gm_run_median_ms(p[n - 1].b) / gm_run_median_ms(p[0].b);
    gm_buf sa = S_side(c->a), sb = S_side(c->b);
    gm_say(&o->why_md, "from {}={} to {} {} grows {} ({} to {}) and {} {} ({} to {}): the GPU's "
                       "fixed cost per diagonal dominates small sizes, the CPU's cubic work large "
                       "ones.",
           GM_LIT(pn), S_num(n0, 6), S_num(n1, 6), GM_BUF(&sa), GM_RATIO(ca),
           GM_MS(gm_run_median_ms(p[0].a)), GM_MS(gm_run_median_ms(p[n - 1].a)), GM_BUF(&sb),
           GM_RATIO(cb), GM_MS(gm_run_median_ms(p[0].b)), GM_MS(gm_run_median_ms(p[n - 1].b)));
    gm_buf_free(&sa);
    gm_buf_free(&sb);
    free(p);
}

/* The fastest value of c->param for side a, per line of the other parameters. */
static void S_best_in(const gm_claim *c, const gm_section *s, gm_claim_result *o)
{
    size_t lines = 0, inside = 0;
    gm_buf list = GM_BUF_INIT;
    bool *done = gm_xcalloc(s->n_runs + 1, sizeof *done);
    for (size_t i = 0; i < s->n_runs; i++) {
        const gm_run *r = s->runs[i];
        if (done[i] || !gm_run_passed(r) || !gm_sel_match(r, c->a) ||
            !gm_filter_match(r, c->filter) || !isfinite(gm_run_median_ms(r)))
            continue;
        /* the line of r: same variant, same other parameters */
        const gm_run *best = r;
        for (size_t j = i; j < s->n_runs; j++) {
            const gm_run *q = s->runs[j];
            if (!gm_run_passed(q) || !gm_sel_match(q, c->a) || !isfinite(gm_run_median_ms(q)))
                continue;
            bool same = true;
            for (size_t k = 0; k < r->n_params && same; k++) {
                const gm_param *x = &r->params[k];
                if (!x->name || !strcmp(x->name, c->param))
                    continue;
                const gm_param *y = gm_run_param(q, x->name);
                same = y && gm_value_num(&y->value) == gm_value_num(&x->value);
            }
            if (!same)
                continue;
            done[j] = true;
            if (gm_run_median_ms(q) < gm_run_median_ms(best))
                best = q;
        }
        double v = S_num_param(best, c->param);
        lines++;
        inside += v >= c->lo && v <= c->hi;
        if (list.len)
            gm_buf_puts(&list, ", ");
        gm_say_value(&list, S_num(v, 6));
    }
    free(done);
    if (!lines) {
        gm_buf_free(&list);
        S_untested(o, "no passed runs of that layout in this file");
        return;
    }
    o->measured = (double)inside / (double)lines;
    gm_say(&o->measured_md, "fastest {}: {}", GM_LIT(c->param), GM_BUF(&list));
    o->verdict = inside == lines ? GM_VERDICT_HOLDS
                 : inside ? GM_VERDICT_DIRECTION
                          : GM_VERDICT_NOT;
    gm_buf side = S_side(c->a);
    gm_say(&o->why_md, "{} of {} image sizes have their fastest {} run inside {}={}–{} (median "
                       "times, one run per block size).",
           GM_INT((long long)inside), GM_INT((long long)lines), GM_BUF(&side), GM_LIT(c->param),
           S_num(c->lo, 6), S_num(c->hi, 6));
    gm_buf_free(&side);
    gm_buf_free(&list);
}

static void S_peak(const gm_claim *c, const gm_section *s, const gm_results *r,
                   gm_claim_result *o)
{
    double peak = r ? gm_value_num(&r->device.theoretical_bandwidth_gbs) : NAN;
    const gm_run *best = NULL;
    for (size_t i = 0; i < s->n_runs; i++) {
        const gm_run *x = s->runs[i];
        if (!gm_run_passed(x) || !gm_sel_match(x, c->a) || !gm_filter_match(x, c->filter))
            continue;
        double g = gm_run_effective_gbs(x);
        if (isfinite(g) && (!best || g > gm_run_effective_gbs(best)))
            best = x;
    }
    if (!best || !(peak > 0)) {
        S_untested(o, "no timed run of that layout, or no theoretical peak, in this file");
        return;
    }
    double g = gm_run_effective_gbs(best), pct = 100 * g / peak;
    o->measured = pct;
    gm_say(&o->measured_md, "{} ({} of {})", GM_PCT(pct), GM_GBS(g), GM_GBS(peak));
    o->verdict = pct >= c->lo ? GM_VERDICT_HOLDS : GM_VERDICT_NOT;
    gm_buf side = S_side(c->a);
    double d = gm_run_metric_num(best, GM_M_DRAM_PCT);
    if (isfinite(d))
        gm_say(&o->why_md, "{} moves its useful bytes at {} while the profiler puts DRAM at {} of "
                           "its peak.",
               GM_BUF(&side), GM_GBS(g), GM_PCT(d));
    else
        gm_say(&o->why_md, "{} moves its useful bytes at {}.", GM_BUF(&side), GM_GBS(g));
    gm_buf_free(&side);
}

void gm_claim_eval(const gm_claim *c, const gm_results *r, const gm_sections *ss,
                   gm_claim_result *o)
{
    memset(o, 0, sizeof *o);
    o->measured = NAN;
    o->measured_md = (gm_buf)GM_BUF_INIT;
    o->why_md = (gm_buf)GM_BUF_INIT;
    gm_buf_puts(&o->measured_md, "");
    gm_buf_puts(&o->why_md, "");
    if (c->kind == GM_CLAIM_NONE) {
        S_untested(o, c->untested ? c->untested : "the suite has no kernel for it");
        return;
    }
    const gm_section *s = S_find(ss, c->experiment);
    if (!s) {
        S_untested(o, "this results file has no runs of the experiment that tests it");
        return;
    }
    switch (c->kind) {
    case GM_CLAIM_RATIO: S_ratio(c, r, s, o); break;
    case GM_CLAIM_COUNTER: S_counter(c, s, o); break;
    case GM_CLAIM_BREAKEVEN: S_breakeven(c, s, o); break;
    case GM_CLAIM_BEST_IN: S_best_in(c, s, o); break;
    case GM_CLAIM_PEAK_PCT: S_peak(c, s, r, o); break;
    case GM_CLAIM_NONE: break;
    }
}

void gm_claim_result_free(gm_claim_result *r)
{
    gm_buf_free(&r->measured_md);
    gm_buf_free(&r->why_md);
}

/* ---- the table ------------------------------------------------------------ */

/* Does the file have the experiment the claim concerns?  A claim of no
 * experiment goes with the whole suite. */
static bool S_present(const gm_claim *c, const gm_sections *ss)
{
    return !c->experiment || S_find(ss, c->experiment);
}

/* The heading text of a source's claims, "[1] Memory coalescing (article)";
 * a source the references do not list, by its name.  Plain text, to pass as
 * GM_TEXT. */
static gm_buf S_source_heading(const char *source)
{
    const gm_source *s = gm_source_find(source);
    gm_buf h = GM_BUF_INIT;
    if (s)
        gm_source_heading(&h, s);
    else
        gm_buf_puts(&h, source);
    return h;
}

/* A verdict with the verb agreeing with its count: "1 holds", "2 hold". */
static const char *S_verdict_counted(int v, size_t count)
{
    bool one = count == 1;
    switch (v) {
    case GM_VERDICT_HOLDS: return one ? "holds" : "hold";
    case GM_VERDICT_DIRECTION:
        return one ? "holds in direction, not size" : "hold in direction, not size";
    case GM_VERDICT_NOT: return one ? "does not hold" : "do not hold";
    default: break;
    }
    return one ? "is not tested here" : "are not tested here";
}

bool gm_claims_present(const gm_sections *ss)
{
    for (size_t i = 0; i < gm_claims_len; i++)
        if (gm_claims[i].experiment && S_find(ss, gm_claims[i].experiment))
            return true;
    return false;
}

void gm_claims_md(gm_buf *b, const gm_results *r, const gm_sections *ss, const char *experiment)
{
    size_t n = 0, tied = 0, absent = 0;
    for (size_t i = 0; i < gm_claims_len; i++) {
        const gm_claim *c = &gm_claims[i];
        if (experiment) {
            n += c->experiment && !strcmp(c->experiment, experiment);
        } else if (S_present(c, ss)) {
            n++;
            tied += c->experiment != NULL;
        } else {
            absent++;
        }
    }
    if (!n || (!experiment && !tied))
        return;
    if (!experiment) {
        size_t count[4] = {0};
        for (size_t i = 0; i < gm_claims_len; i++) {
            if (!S_present(&gm_claims[i], ss))
                continue;
            gm_claim_result x;
            gm_claim_eval(&gm_claims[i], r, ss, &x);
            count[x.verdict]++;
            gm_claim_result_free(&x);
        }
        gm_buf_puts(b, "## Claims checked on this GPU\n\n");
        gm_say(b,
               "The quantitative claims of the documents the experiments come from, judged on "
               "this run: {} hold, {} hold in direction but not in size, {} do not hold, {} are "
               "not tested here. None of the documents measured on this GPU, so a claim is judged "
               "on its direction and order of magnitude: *holds* means the figure measured here "
               "lies within the claimed range widened by 25% (a ratio), 5% (a counter) or a "
               "factor of 1.5 (a break-even size); *holds in direction, not size* means the same "
               "side wins by 5% or more, by another amount; *does not hold* means the other side "
               "wins, or neither. Ratios are median times, side a over side b, at matched "
               "parameters. The claims are grouped by the document that makes them; each "
               "experiment's section lists its own.\n\n",
               GM_INT((long long)count[GM_VERDICT_HOLDS]),
               GM_INT((long long)count[GM_VERDICT_DIRECTION]),
               GM_INT((long long)count[GM_VERDICT_NOT]),
               GM_INT((long long)count[GM_VERDICT_UNTESTED]));
    } else {
        gm_buf_puts(b, "Claims this experiment tests (judged on direction and order of magnitude: "
                       "they were measured on other hardware):\n\n");
    }
    /* one table per source document (the full list, under a heading that names
     * it) or of one experiment (whose section names its sources already) */
    const char **srcs = gm_xcalloc(gm_claims_len + 1, sizeof *srcs);
    size_t ns = 0;
    for (size_t i = 0; i < gm_claims_len; i++) {
        const gm_claim *c = &gm_claims[i];
        if (experiment ? !(c->experiment && !strcmp(c->experiment, experiment))
                       : !S_present(c, ss))
            continue;
        const char *src = experiment ? "" : c->source;
        bool seen = false;
        for (size_t k = 0; k < ns && !seen; k++)
            seen = !strcmp(srcs[k], src);
        if (!seen)
            srcs[ns++] = src;
    }
    for (size_t k = 0; k < ns; k++) {
        /* the hardware, once under the heading when all its claims share it */
        const char *hw = NULL;
        bool one_hw = !experiment;
        for (size_t i = 0; i < gm_claims_len && one_hw; i++) {
            const gm_claim *c = &gm_claims[i];
            if (!S_present(c, ss) || strcmp(c->source, srcs[k]) != 0)
                continue;
            one_hw = !hw || !strcmp(hw, c->hardware);
            hw = c->hardware;
        }
        if (!experiment) {
            /* the document as its reference names it, the hardware once when its
             * claims share a stated one */
            gm_buf h = S_source_heading(srcs[k]);
            gm_say(b, "### {}\n\n", GM_TEXT(h.data));
            gm_buf_free(&h);
            if (one_hw && hw && strcmp(hw, NOT_STATED) != 0)
                gm_say(b, "Measured on {}.\n\n", GM_TEXT(hw));
        }
        gm_buf_puts(b, one_hw ? "| Claim | Claimed | Measured here | Verdict | Why |\n"
                              : "| Claim | Claimed (hardware) | Measured here | Verdict | Why |\n");
        gm_buf_puts(b, "|---|---|---|---|---|\n");
        for (size_t i = 0; i < gm_claims_len; i++) {
            const gm_claim *c = &gm_claims[i];
            if (experiment ? !(c->experiment && !strcmp(c->experiment, experiment))
                           : !S_present(c, ss) || strcmp(c->source, srcs[k]) != 0)
                continue;
            gm_claim_result x;
            gm_claim_eval(c, r, ss, &x);
            gm_buf cite = GM_BUF_INIT, hwb = GM_BUF_INIT;
            const gm_source *src = experiment ? gm_source_find(c->source) : NULL;
            if (src)   /* an experiment's table: which document says it */
                gm_say(&cite, " [\\[{}\\]](#references)", GM_INT(src->number));
            if (!one_hw && strcmp(c->hardware, NOT_STATED) != 0)
                gm_say(&hwb, " ({})", GM_TEXT(c->hardware));
            gm_say(b, "| {}{} | {}{} | {} | {} | {} |\n", GM_TEXT(c->claim), GM_BUF(&cite),
                   GM_TEXT(c->claimed), GM_BUF(&hwb), GM_BUF(&x.measured_md),
                   GM_LIT(gm_verdict_name(x.verdict)), GM_BUF(&x.why_md));
            gm_buf_free(&cite);
            gm_buf_free(&hwb);
            gm_claim_result_free(&x);
        }
        gm_buf_puts(b, "\n");
    }
    free((void *)srcs);
    if (!experiment && absent)
        gm_say(b, "{} more claim{} concern{} experiments this results file does not have.\n\n",
               GM_INT((long long)absent), GM_LIT(absent == 1 ? "" : "s"),
               GM_LIT(absent == 1 ? "s" : ""));
}

void gm_claims_brief_md(gm_buf *b, const gm_results *r, const gm_sections *ss,
                        const char *experiment)
{
    /* per source document: the count of each verdict */
    const char *src[8];
    size_t count[8][4];
    size_t ns = 0;
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < gm_claims_len; i++) {
        const gm_claim *c = &gm_claims[i];
        if (!c->experiment || strcmp(c->experiment, experiment) != 0)
            continue;
        size_t k = 0;
        while (k < ns && strcmp(src[k], c->source) != 0)
            k++;
        if (k == ns) {
            if (ns == sizeof src / sizeof src[0])
                continue;
            src[ns++] = c->source;
        }
        gm_claim_result x;
        gm_claim_eval(c, r, ss, &x);
        count[k][x.verdict]++;
        gm_claim_result_free(&x);
    }
    if (!ns)
        return;
    /* each source's table, under "Claims checked on this GPU", gives the
     * figures and the why */
    gm_buf_puts(b, "**Claims it tests:**");
    for (size_t k = 0; k < ns; k++) {
        gm_buf h = S_source_heading(src[k]), slug = GM_BUF_INIT;
        gm_md_slug(h.data, &slug);
        gm_say(b, k ? "; [{}](#{}): " : " [{}](#{}): ", GM_TEXT(h.data), GM_BUF(&slug));
        gm_buf_free(&h);
        gm_buf_free(&slug);
        bool first = true;
        for (int v = 0; v < 4; v++) {
            if (!count[k][v])
                continue;
            gm_say(b, first ? "{} {}" : ", {} {}", GM_INT((long long)count[k][v]),
                   GM_LIT(S_verdict_counted(v, count[k][v])));
            first = false;
        }
    }
    gm_buf_puts(b, ".\n\n");
}

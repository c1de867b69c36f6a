/* test_warp_rules.c — the per-warp rules of core/warp_rules.h (shared by the
 * CPU model and the tracer's device patch) on warp traces written as the patch
 * sees them: 32 lanes' byte addresses in a device allocation (global) or in the
 * block's shared window, and the mask of lanes that executed the access.  The
 * patterns are those of tests/gpu/trace_vs_ncu, where the same counts are
 * compared with Nsight Compute on a GPU. */
#include "../core/model.h"
#include "../core/warp_rules.h"

#include <criterion/criterion.h>
#include <stdint.h>

#define FULL 0xffffffffu
#define BASE 0x7f3a1c000000ull   /* a cudaMalloc address (256-byte aligned and more) */

static void S_affine(uint64_t a[32], uint64_t base, int64_t stride)
{
    for (int i = 0; i < 32; i++)
        a[i] = base + (uint64_t)(stride * i);
}

static gm_wr_global S_g(unsigned size, const uint64_t a[32], uint32_t mask)
{
    gm_wr_global g;
    gm_wr_global_count(size, a, mask, &g);
    return g;
}

static gm_wr_shared S_s(bool load, unsigned size, const uint64_t a[32], uint32_t mask)
{
    gm_wr_shared s;
    gm_wr_shared_count(load, size, a, mask, &s);
    return s;
}

/* Lanes whose index is a multiple of k. */
static uint32_t S_every(int k)
{
    uint32_t m = 0;
    for (int i = 0; i < 32; i += k)
        m |= 1u << i;
    return m;
}

/* ---- global ---------------------------------------------------------------- */

Test(warp_rules, global_coalesced_4_bytes)
{
    uint64_t a[32];
    S_affine(a, BASE, 4);
    gm_wr_global g = S_g(4, a, FULL);
    cr_assert_eq(g.lanes, 32);
    cr_assert_eq(g.distinct, 32);
    cr_assert_eq(g.sectors, 4);
    cr_assert_eq(g.lines, 1);
    cr_assert_eq(g.sectors_ideal, 4);
    cr_assert_eq(g.sectors_ideal_requested, 4);
}

Test(warp_rules, global_strided_4_bytes)
{
    static const struct { int stride, sectors, lines; } c[] = {
        {2, 8, 2}, {4, 16, 4}, {8, 32, 8}, {32, 32, 32}, {33, 32, 32}};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        uint64_t a[32];
        S_affine(a, BASE, 4 * c[k].stride);
        gm_wr_global g = S_g(4, a, FULL);
        cr_assert_eq(g.sectors, c[k].sectors, "stride %d", c[k].stride);
        cr_assert_eq(g.lines, c[k].lines, "stride %d", c[k].stride);
        /* the same 128 bytes asked for, wherever they lie */
        cr_assert_eq(g.sectors_ideal, 4, "stride %d", c[k].stride);
    }
}

Test(warp_rules, global_misaligned_start)
{
    static const struct { int offset, sectors, lines; } c[] = {
        {4, 5, 2}, {32, 4, 2}, {96, 4, 2}, {100, 5, 2}, {124, 5, 2}, {128, 4, 1}};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        uint64_t a[32];
        S_affine(a, BASE + (uint64_t)c[k].offset, 4);
        gm_wr_global g = S_g(4, a, FULL);
        cr_assert_eq(g.sectors, c[k].sectors, "offset %d", c[k].offset);
        cr_assert_eq(g.lines, c[k].lines, "offset %d", c[k].offset);
        cr_assert_eq(g.sectors_ideal, 4);
    }
}

Test(warp_rules, global_8_and_16_bytes)
{
    uint64_t a[32];
    S_affine(a, BASE, 8);
    gm_wr_global g = S_g(8, a, FULL);
    cr_assert(g.sectors == 8 && g.lines == 2 && g.sectors_ideal == 8);
    S_affine(a, BASE, 16);
    g = S_g(8, a, FULL);                                  /* float2 at stride 2 */
    cr_assert(g.sectors == 16 && g.sectors_ideal == 8);
    g = S_g(16, a, FULL);                                 /* float4 */
    cr_assert(g.sectors == 16 && g.lines == 4 && g.sectors_ideal == 16);
    S_affine(a, BASE + 16, 16);                           /* float4, one float4 late */
    g = S_g(16, a, FULL);
    cr_assert(g.sectors == 17 && g.lines == 5 && g.sectors_ideal == 16);
}

Test(warp_rules, global_broadcast)
{
    uint64_t a[32];
    S_affine(a, BASE + 64, 0);
    gm_wr_global g = S_g(4, a, FULL);
    cr_assert(g.sectors == 1 && g.distinct == 1 && g.lines == 1);
    cr_assert_eq(g.sectors_ideal, 1);              /* 4 distinct bytes */
    cr_assert_eq(g.sectors_ideal_requested, 4);    /* 128 bytes asked for */
    g = S_g(16, a, FULL);
    cr_assert(g.sectors == 1 && g.sectors_ideal == 1 && g.sectors_ideal_requested == 16);
    /* two groups of lanes on two words of one sector */
    for (int i = 0; i < 32; i++)
        a[i] = BASE + (i < 16 ? 0 : 4);
    g = S_g(4, a, FULL);
    cr_assert(g.sectors == 1 && g.distinct == 2 && g.sectors_ideal == 1);
}

Test(warp_rules, global_partial_and_sparse_warps)
{
    uint64_t a[32];
    S_affine(a, BASE, 4);
    gm_wr_global g = S_g(4, a, (1u << 20) - 1);           /* if (lane < 20) */
    cr_assert(g.lanes == 20 && g.sectors == 3 && g.sectors_ideal == 3);
    g = S_g(4, a, S_every(8));                            /* if (lane % 8 == 0) */
    cr_assert(g.lanes == 4 && g.sectors == 4 && g.sectors_ideal == 1);
    S_affine(a, BASE, 16);
    g = S_g(16, a, S_every(8));
    cr_assert(g.sectors == 4 && g.lines == 4 && g.sectors_ideal == 2);
    g = S_g(4, a, 0);                                     /* every lane predicated off */
    cr_assert(g.lanes == 0 && g.sectors == 0 && g.sectors_ideal == 0 && g.lines == 0);
    g = S_g(4, a, 1u << 31);                              /* the last lane alone */
    cr_assert(g.sectors == 1 && g.sectors_ideal == 1);
}

Test(warp_rules, global_bytes_and_halves)
{
    uint64_t a[32];
    S_affine(a, BASE, 1);
    gm_wr_global g = S_g(1, a, FULL);
    cr_assert(g.sectors == 1 && g.sectors_ideal == 1);
    S_affine(a, BASE + 24, 2);                            /* 64 bytes across 3 sectors */
    g = S_g(2, a, FULL);
    cr_assert(g.sectors == 3 && g.sectors_ideal == 2);
}

/* ---- shared ------------------------------------------------------------------ */

Test(warp_rules, shared_conflicts_2_to_32_ways)
{
    for (int stride = 1; stride <= 32; stride *= 2) {
        uint64_t a[32];
        S_affine(a, 0, 4 * stride);
        gm_wr_shared s = S_s(true, 4, a, FULL);
        cr_assert_eq(s.wavefronts, stride, "stride %d", stride);
        cr_assert_eq(s.worst, stride);
        cr_assert_eq(s.ideal, 1);
        s = S_s(false, 4, a, FULL);                       /* stores conflict alike */
        cr_assert_eq(s.wavefronts, stride, "store stride %d", stride);
    }
    uint64_t a[32];
    S_affine(a, 0, 4 * 33);                               /* padded row: banks all differ */
    cr_assert_eq(S_s(true, 4, a, FULL).wavefronts, 1);
    S_affine(a, 0, 4 * 3);                                /* odd stride: conflict-free */
    cr_assert_eq(S_s(true, 4, a, FULL).wavefronts, 1);
    S_affine(a, 0, 4 * 6);                                /* 6 = 2 x 3: 2-way */
    cr_assert_eq(S_s(true, 4, a, FULL).wavefronts, 2);
}

Test(warp_rules, shared_broadcast_and_partial)
{
    uint64_t a[32];
    S_affine(a, 28, 0);
    gm_wr_shared s = S_s(true, 4, a, FULL);
    cr_assert(s.wavefronts == 1 && s.ideal == 1);
    s = S_s(false, 4, a, FULL);                           /* one write */
    cr_assert(s.wavefronts == 1 && s.ideal == 1);
    /* lanes on two words of one bank: 2 wavefronts, however many lanes share each */
    for (int i = 0; i < 32; i++)
        a[i] = i % 2 ? 0 : 128;
    cr_assert_eq(S_s(true, 4, a, FULL).wavefronts, 2);
    S_affine(a, 0, 4);
    s = S_s(true, 4, a, (1u << 20) - 1);
    cr_assert(s.wavefronts == 1 && s.ideal == 1);
    s = S_s(true, 4, a, 0);
    cr_assert(s.wavefronts == 0 && s.ideal == 0 && s.worst == 0);
    /* 1- and 2-byte lanes share the word that holds them */
    S_affine(a, 0, 1);
    cr_assert_eq(S_s(true, 1, a, FULL).wavefronts, 1);
    S_affine(a, 0, 128);
    cr_assert_eq(S_s(true, 2, a, FULL).wavefronts, 32);
}

Test(warp_rules, shared_8_bytes)
{
    uint64_t a[32];
    S_affine(a, 0, 8);                                    /* float2 s2[lane] */
    gm_wr_shared s = S_s(true, 8, a, FULL);
    cr_assert(s.wavefronts == 2 && s.ideal == 2);
    S_affine(a, 0, 16);                                   /* s2[2 * lane]: 2-way per half */
    s = S_s(true, 8, a, FULL);
    cr_assert(s.wavefronts == 4 && s.ideal == 2);
    S_affine(a, 24, 0);                                   /* s2[3] by every lane: packed */
    s = S_s(true, 8, a, FULL);
    cr_assert(s.wavefronts == 1 && s.ideal == 1);
}

Test(warp_rules, shared_16_bytes)
{
    uint64_t a[32];
    S_affine(a, 0, 16);                                   /* float4 s4[lane] */
    gm_wr_shared s = S_s(true, 16, a, FULL);
    cr_assert(s.wavefronts == 4 && s.ideal == 4 && s.worst == 1);
    for (int i = 0; i < 32; i++)                          /* s4[lane / 2]: lane pairs packed */
        a[i] = 16u * (unsigned)(i / 2);
    s = S_s(true, 16, a, FULL);
    cr_assert(s.wavefronts == 2 && s.ideal == 2);
    s = S_s(false, 16, a, FULL);                          /* stores are not packed */
    cr_assert(s.wavefronts == 4 && s.ideal == 4);
    S_affine(a, 0, 32);                                   /* s4[2 * lane]: 2-way per quarter */
    s = S_s(true, 16, a, FULL);
    cr_assert(s.wavefronts == 8 && s.ideal == 4 && s.worst == 2);
    S_affine(a, 0, 16);                                   /* lanes 0, 8, 16, 24: partners idle */
    s = S_s(true, 16, a, S_every(8));
    cr_assert(s.wavefronts == 4 && s.ideal == 2);
    /* Nsight Compute's ideal: 64 bytes asked for, 1 (the H200, trace_vs_ncu) */
    cr_assert_eq(gm_wr_shared_ideal(s.wavefronts, 16, S_every(8)), 1);
    s = S_s(true, 16, a, FULL);
    cr_assert_eq(gm_wr_shared_ideal(s.wavefronts, 16, FULL), 4);
    /* s4[(lane >> 4) * 4 + 1]: each half broadcasts one float4 (a matrix
     * multiply's A tile read by two rows of threads): 2 wavefronts, and the
     * H200's ideal is 2, though the 32 distinct bytes would fit one */
    for (int i = 0; i < 32; i++)
        a[i] = 16u * (unsigned)((i >> 4) * 4 + 1);
    s = S_s(true, 16, a, FULL);
    cr_assert_eq(s.wavefronts, 2);
    cr_assert_eq(gm_wr_shared_ideal(s.wavefronts, 16, FULL), 2);
    /* a 32-way conflict: 32 wavefronts, ideal 1 (128 bytes asked for) */
    S_affine(a, 0, 128);
    s = S_s(true, 4, a, FULL);
    cr_assert_eq(s.wavefronts, 32);
    cr_assert_eq(gm_wr_shared_ideal(s.wavefronts, 4, FULL), 1);
}

/* Nsight Compute's global ideal on the patterns that tell its rule apart from
 * the distinct bytes' (each measured on the H200, tests/gpu/trace_vs_ncu):
 * lanes sharing addresses on several sectors count every lane's bytes, up to
 * the sectors touched. */
Test(warp_rules, global_ideal_is_nsight_computes)
{
    static const struct { const char *what; int div, mul, sectors, ideal; uint32_t mask; } c[] = {
        {"lane pairs share, 64 B", 2, 4, 2, 2, 0xffffffffu},
        {"two halves, 2 sectors apart", 16, 64, 2, 2, 0xffffffffu},
        {"two halves, adjacent words", 16, 4, 1, 1, 0xffffffffu},
        {"four octets, 4 sectors", 8, 64, 4, 4, 0xffffffffu},
        {"eight quads, 8 sectors", 4, 256, 8, 4, 0xffffffffu},
        {"eight quads, adjacent words", 4, 4, 1, 1, 0xffffffffu},
        {"16 lanes, four quads, 4 sectors", 4, 256, 4, 2, 0xffffu},
        {"broadcast to 16 lanes", 32, 0, 1, 1, 0xffffu},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        uint64_t a[32];
        for (int i = 0; i < 32; i++)
            a[i] = BASE + (uint64_t)(i / c[k].div) * (uint64_t)c[k].mul;
        gm_wr_global g = S_g(4, a, c[k].mask);
        cr_assert_eq(g.sectors, c[k].sectors, "%s", c[k].what);
        cr_assert_eq(g.sectors_ideal, c[k].ideal, "%s", c[k].what);
    }
    /* 31 lanes on one word, one on another sector: 2 touched, 2 ideal */
    uint64_t a[32];
    for (int i = 0; i < 32; i++)
        a[i] = BASE + (i == 31 ? 64 : 0);
    gm_wr_global g = S_g(4, a, FULL);
    cr_assert(g.sectors == 2 && g.sectors_ideal == 2 && g.sectors_ideal_distinct == 1);
}

/* ---- one implementation: the model counts what the rules count ------------------- */

Test(warp_rules, model_uses_the_rules)
{
    uint64_t a[32];
    for (int stride = 0; stride <= 40; stride++) {
        for (unsigned size = 4; size <= 16; size *= 2) {
            S_affine(a, BASE, (int64_t)size * stride);
            uint32_t masks[] = {FULL, (1u << 20) - 1, S_every(8), 0x80000001u};
            for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
                gm_access_counts c;
                gm_error e;
                cr_assert_eq(gm_access_analyze(GM_SPACE_GLOBAL, GM_OP_LOAD, size, a, masks[m],
                                               &c, &e), GM_OK);
                gm_wr_global g = S_g(size, a, masks[m]);
                cr_assert(c.sectors == g.sectors && c.lines == g.lines &&
                          c.bytes_unique == (long long)g.distinct * size);
                uint64_t sh[32];
                S_affine(sh, 0, (int64_t)size * stride);
                cr_assert_eq(gm_access_analyze(GM_SPACE_SHARED, GM_OP_LOAD, size, sh, masks[m],
                                               &c, &e), GM_OK);
                gm_wr_shared s = S_s(true, size, sh, masks[m]);
                cr_assert(c.wavefronts == s.wavefronts && c.ideal_wavefronts == s.ideal &&
                          c.way_hist[s.worst] == 1);
            }
        }
    }
}

/* ---- the fast paths against a brute-force count --------------------------------- */

static uint64_t S_rng = 0x9e3779b97f4a7c15ull;

static uint64_t S_next(void)
{
    S_rng ^= S_rng << 13;
    S_rng ^= S_rng >> 7;
    S_rng ^= S_rng << 17;
    return S_rng;
}

/* Distinct values of addr >> shift among the active lanes, by pairs. */
static int S_brute_distinct(const uint64_t a[32], uint32_t mask, unsigned shift)
{
    int n = 0;
    for (int i = 0; i < 32; i++) {
        if (!(mask >> i & 1u))
            continue;
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = (mask >> j & 1u) && a[j] >> shift == a[i] >> shift;
        n += !seen;
    }
    return n;
}

/* Wavefronts of one shared access: per phase, the most distinct words in one bank. */
static void S_brute_shared(bool load, unsigned size, const uint64_t a[32], uint32_t mask,
                           int *waves, int *phases)
{
    unsigned lpp = size <= 4 ? 32 : size == 8 ? 16 : 8, wpl = size <= 4 ? 1 : size / 4;
    bool packed[2] = {true, true};
    for (unsigned x = 1; x <= 2; x++)
        for (unsigned i = 0; i < 32; i++)
            if ((mask >> i & 1u) && (mask >> (i ^ x) & 1u) && a[i] != a[i ^ x])
                packed[x - 1] = false;
    if (load && size >= 8 && (packed[0] || packed[1]))
        lpp *= 2;
    *waves = *phases = 0;
    for (unsigned p = 0; p < 32 / lpp; p++) {
        uint64_t w[64];
        int n = 0;
        for (unsigned i = p * lpp; i < (p + 1) * lpp; i++)
            if (mask >> i & 1u)
                for (unsigned k = 0; k < wpl; k++)
                    w[n++] = (a[i] >> 2) + k;
        if (!n)
            continue;
        int worst = 0;
        for (int i = 0; i < n; i++) {
            int in_bank = 0;
            for (int j = 0; j < n; j++) {
                bool first = true;   /* count each distinct word once */
                for (int k = 0; k < j && first; k++)
                    first = w[k] != w[j];
                in_bank += first && w[j] % 32 == w[i] % 32;
            }
            worst = in_bank > worst ? in_bank : worst;
        }
        *waves += worst;
        *phases += 1;
    }
}

Test(warp_rules, fast_paths_agree_with_brute_force)
{
    static const unsigned sizes[] = {1, 2, 4, 8, 16};
    int in_order = 0, narrow = 0;
    for (int trial = 0; trial < 20000; trial++) {
        unsigned size = sizes[S_next() % 5];
        uint64_t a[32];
        uint64_t base = BASE + (S_next() % 64) * 16;
        int kind = (int)(S_next() % 4);
        int64_t stride = (int64_t)(S_next() % 40) - 4;
        for (int i = 0; i < 32; i++) {
            uint64_t x = kind == 0 ? base + (uint64_t)(stride * i * (int64_t)size)   /* affine */
                       : kind == 1 ? base + (S_next() % 96) * size                   /* scattered */
                       : kind == 2 ? base + (uint64_t)(i / 2) * size                  /* pairs */
                                   : base + (S_next() % 8) * 32 * size;               /* one bank */
            a[i] = x & ~(uint64_t)(size - 1);
        }
        uint32_t mask = S_next() % 3 == 0 ? (uint32_t)S_next() : FULL;
        unsigned s = gm_wr_log2(size);
        gm_wr_global g;
        in_order += gm_wr_global_in_order(s, a, mask, &g);
        gm_wr_global_count(size, a, mask, &g);
        cr_assert_eq(g.lanes, __builtin_popcount(mask));
        cr_assert_eq(g.distinct, S_brute_distinct(a, mask, s), "trial %d", trial);
        cr_assert_eq(g.sectors, S_brute_distinct(a, mask, 5), "trial %d", trial);
        cr_assert_eq(g.lines, S_brute_distinct(a, mask, 7), "trial %d", trial);
        for (int load = 0; load <= 1; load++) {
            uint64_t sh[32];
            for (int i = 0; i < 32; i++)
                sh[i] = a[i] - BASE;
            int waves, phases;
            S_brute_shared(load, size, sh, mask, &waves, &phases);
            gm_wr_shared w = S_s(load, size, sh, mask);
            cr_assert_eq(w.wavefronts, waves, "trial %d size %u load %d", trial, size, load);
            cr_assert_eq(w.ideal, phases, "trial %d", trial);
            unsigned lpp = size <= 4 ? 32 : size == 8 ? 16 : 8;
            gm_wr_shared tmp;
            narrow += gm_wr_shared_narrow(lpp, size <= 4 ? 1 : size / 4, sh, mask, &tmp);
        }
        /* the ideals: the least of what the access took and what its lanes asked for */
        int req = (int)(((unsigned)__builtin_popcount(mask) * size + 31) / 32);
        cr_assert_eq(g.sectors_ideal, g.sectors < req ? g.sectors : req, "trial %d", trial);
        cr_assert_eq(g.sectors_ideal_distinct,
                     (int)((S_brute_distinct(a, mask, s) * size + 31) / 32), "trial %d", trial);
    }
    /* both paths of each rule were taken */
    cr_assert(in_order > 1000 && in_order < 19000, "%d warps in order", in_order);
    cr_assert(narrow > 1000 && narrow < 39000, "%d narrow phases sets", narrow);
}

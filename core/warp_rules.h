/* warp_rules.h — what the memory system counts for one warp-level access:
 * the sm_70+ rules of docs/model.md as static inline functions that compile
 * as C (the address-trace model, core/model.c) and as CUDA (the tracer's
 * device patch, collectors/trace_patch.cu), so both count with one
 * implementation.  No CUDA header: under nvcc GM_HD marks the functions
 * __host__ __device__, elsewhere they are plain static inline C.  No
 * library call either (no memset, no malloc): device code calls them.
 *
 * Input everywhere: addr[i] is the byte address lane i touches (shared
 * memory: the offset in the block's shared window); only lanes whose bit is
 * set in mask are read; size is 1, 2, 4, 8 or 16 and every active address a
 * multiple of it (the caller checks: the GPU faults otherwise).
 */
#ifndef GM_WARP_RULES_H
#define GM_WARP_RULES_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GM_HD __host__ __device__ static inline
#else
#define GM_HD static inline
#endif
/* Loops over the 32 lanes are unrolled in device code, so that an array of
 * the lanes' addresses indexed by lane stays in registers. */
#ifdef __CUDA_ARCH__
#define GM_WR_UNROLL _Pragma("unroll")
#else
#define GM_WR_UNROLL
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum {
    GM_WR_WARP = 32,          /* lanes */
    GM_WR_SECTOR_SHIFT = 5,   /* 32-byte sectors */
    GM_WR_LINE_SHIFT = 7,     /* 128-byte lines */
    GM_WR_BANKS = 32,         /* shared-memory banks of 4-byte words */
    GM_WR_WAVEFRONT_BYTES = 128 /* what the shared data stage returns per wavefront */
};

/* One global (or local) access. */
typedef struct {
    int lanes;                /* active lanes */
    int distinct;             /* distinct addresses (aligned units of the access size) */
    int sectors;              /* distinct 32-byte sectors: what L1TEX fetches */
    int lines;                /* distinct 128-byte lines */
    int sectors_ideal;        /* Nsight Compute's ideal ("L2 Theoretical Sectors Global
                                 Ideal"): the sectors every active lane's bytes would take
                                 if packed, never more than the access touched:
                                 min(sectors, sectors_ideal_requested).  Measured on the
                                 H200 against its Source page on 58 patterns
                                 (tests/gpu/trace_vs_ncu): eight lanes on each of four
                                 sectors ideal 4, not the 1 the 16 distinct bytes take;
                                 a broadcast 1, not 4 */
    int sectors_ideal_requested; /* every active lane's bytes, a broadcast counted once
                                    per lane: ceil(lanes * size / 32) */
    int sectors_ideal_distinct;  /* the distinct bytes packed: ceil(distinct * size / 32) */
} gm_wr_global;

/* One shared-memory access. */
typedef struct {
    int wavefronts;           /* summed over the phases */
    int ideal;                /* phases with an active lane: one wavefront each at best */
    int worst;                /* wavefronts of the worst phase (n-way), 0: no active lane */
} gm_wr_shared;

GM_HD bool gm_wr_size_ok(unsigned size)
{
    return size == 1 || size == 2 || size == 4 || size == 8 || size == 16;
}

GM_HD int gm_wr_popcount(uint32_t m)
{
    int n = 0;
    for (; m; m &= m - 1)
        n++;
    return n;
}

GM_HD unsigned gm_wr_log2(unsigned size)
{
    unsigned s = 0;
    while ((1u << s) < size)
        s++;
    return s;
}

/* Insertion sort: n is at most 64 here, where it beats anything cleverer,
 * and the usual warp (ascending lanes on ascending addresses) is sorted
 * already, which it passes through in n compares. */
GM_HD void gm_wr_sort(uint64_t *a, int n)
{
    for (int i = 1; i < n; i++) {
        uint64_t v = a[i];
        int j = i - 1;
        for (; j >= 0 && a[j] > v; j--)
            a[j + 1] = a[j];
        a[j + 1] = v;
    }
}

/* Sort and remove duplicates in place; returns the number of distinct keys. */
GM_HD int gm_wr_unique(uint64_t *a, int n)
{
    if (n == 0)
        return 0;
    gm_wr_sort(a, n);
    int m = 1;
    for (int i = 1; i < n; i++)
        if (a[i] != a[m - 1])
            a[m++] = a[i];
    return m;
}

/* Number of distinct keys among the active lanes' addr >> shift. */
GM_HD int gm_wr_distinct(const uint64_t addr[32], uint32_t mask, unsigned shift)
{
    uint64_t k[GM_WR_WARP];
    int n = 0;
    GM_WR_UNROLL
    for (int lane = 0; lane < GM_WR_WARP; lane++)
        if (mask >> lane & 1u)
            k[n++] = addr[lane] >> shift;
    return gm_wr_unique(k, n);
}

/* Number of runs of equal a[i] >> shift in a sorted array. */
GM_HD int gm_wr_runs(const uint64_t *a, int n, unsigned shift)
{
    int runs = 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || a[i] >> shift != a[i - 1] >> shift)
            runs++;
    return runs;
}

/* The usual warp first: when the active lanes' aligned units (addr >> s)
 * never decrease in lane order (coalesced, strided, shifted, broadcast and
 * partial warps), distinct units, sectors and lines are the runs in lane
 * order, with no copy and no sort.  False when a unit decreases. */
GM_HD bool gm_wr_global_in_order(unsigned s, const uint64_t addr[32], uint32_t mask,
                                 gm_wr_global *o)
{
    int n = 0, distinct = 0, sectors = 0, lines = 0;
    uint64_t prev = 0;
    bool in_order = true;
    GM_WR_UNROLL
    for (int lane = 0; lane < GM_WR_WARP; lane++) {
        if (!(mask >> lane & 1u))
            continue;
        uint64_t u = addr[lane] >> s;
        if (n == 0) {
            distinct = sectors = lines = 1;
        } else {
            in_order = in_order && u >= prev;
            distinct += u != prev;
            sectors += u >> (GM_WR_SECTOR_SHIFT - s) != prev >> (GM_WR_SECTOR_SHIFT - s);
            lines += u >> (GM_WR_LINE_SHIFT - s) != prev >> (GM_WR_LINE_SHIFT - s);
        }
        prev = u;
        n++;
    }
    if (!in_order)
        return false;
    o->lanes = n;
    o->distinct = distinct;
    o->sectors = sectors;
    o->lines = lines;
    return true;
}

/* Global and local memory (sm_70+): the warp's instruction is one request to
 * L1TEX whatever the access size; it touches every distinct 32-byte sector
 * and 128-byte line covered by an active lane.  Accesses are naturally aligned
 * and at most 16 bytes, so a lane's bytes lie in one sector: sectors <= 32.
 * Lanes out of order: one sort of the lanes' aligned units gives all three
 * counts, since a unit lies in one sector and one line, so sectors and lines
 * are runs of the sorted units. */
GM_HD void gm_wr_global_count(unsigned size, const uint64_t addr[32], uint32_t mask,
                              gm_wr_global *o)
{
    unsigned s = gm_wr_log2(size);
    if (!gm_wr_global_in_order(s, addr, mask, o)) {
        uint64_t k[GM_WR_WARP];
        int n = 0;
        GM_WR_UNROLL
        for (int lane = 0; lane < GM_WR_WARP; lane++)
            if (mask >> lane & 1u)
                k[n++] = addr[lane] >> s;
        o->lanes = n;
        o->distinct = gm_wr_unique(k, n);
        o->sectors = gm_wr_runs(k, o->distinct, GM_WR_SECTOR_SHIFT - s);
        o->lines = gm_wr_runs(k, o->distinct, GM_WR_LINE_SHIFT - s);
    }
    o->sectors_ideal_distinct = (int)(((unsigned)o->distinct * size + 31u) >> GM_WR_SECTOR_SHIFT);
    o->sectors_ideal_requested = (int)(((unsigned)o->lanes * size + 31u) >> GM_WR_SECTOR_SHIFT);
    o->sectors_ideal =
        o->sectors < o->sectors_ideal_requested ? o->sectors : o->sectors_ideal_requested;
}

/* Uniform-address packing of 8- and 16-byte shared loads.  The data stage
 * returns 128 bytes, one 4-byte register per lane of a warp, per cycle; when
 * lanes n and n^1 (or n and n^2) ask for the same address everywhere, two
 * lanes share a return slot and a pass serves twice the lanes [NVIDIA's
 * description for CC 7.x; measured on sm_90, docs/model.md].  True when no
 * two active partners differ; an inactive partner does not break it. */
GM_HD bool gm_wr_packed_pairs(const uint64_t addr[32], uint32_t mask, unsigned x)
{
    GM_WR_UNROLL
    for (unsigned lane = 0; lane < GM_WR_WARP; lane++) {
        unsigned mate = lane ^ x;
        if (mate > lane && (mask >> lane & 1u) && (mask >> mate & 1u) && addr[lane] != addr[mate])
            return false;
    }
    return true;
}

/* The usual phase first: when the words of every phase's active lanes lie
 * within 32 consecutive words, distinct words sit in distinct banks and each
 * phase with an active lane takes one wavefront.  False otherwise (the phase
 * may conflict: count it word by word). */
GM_HD bool gm_wr_shared_narrow(unsigned lanes_per_phase, unsigned words_per_lane,
                               const uint64_t addr[32], uint32_t mask, gm_wr_shared *o)
{
    int phases = 0;
    bool narrow = true, any = false;
    uint64_t lo = 0, hi = 0;
    GM_WR_UNROLL
    for (unsigned lane = 0; lane < GM_WR_WARP; lane++) {
        if (lane % lanes_per_phase == 0 && any) {
            narrow = narrow && hi - lo < GM_WR_BANKS;
            phases++;
            any = false;
        }
        if (!(mask >> lane & 1u))
            continue;
        uint64_t w = addr[lane] >> 2, e = w + words_per_lane - 1;
        lo = any && lo < w ? lo : w;
        hi = any && hi > e ? hi : e;
        any = true;
    }
    if (any) {
        narrow = narrow && hi - lo < GM_WR_BANKS;
        phases++;
    }
    if (!narrow)
        return false;
    o->wavefronts = phases;
    o->ideal = phases;
    o->worst = phases ? 1 : 0;
    return true;
}

/* Shared memory: 32 banks of 4-byte words, bank = (address / 4) % 32.
 * Lanes are served in phases of 32 (accesses of 4 bytes or less), 16 (8-byte)
 * or 8 (16-byte) lanes: a phase moves at most 32 words = 128 bytes, which is
 * what the data stage returns per cycle.  An 8- or 16-byte load whose lane
 * pairs n, n^1 or n, n^2 read equal addresses is packed two lanes to a slot:
 * its phases are twice as wide (32 or 16 lanes), still at most 32 distinct
 * words.  Within a phase a bank delivers one distinct word per wavefront;
 * lanes on the same word share it (broadcast on loads, a single write on
 * stores).  So a phase costs max over banks of the distinct words mapped to
 * the bank, and its ideal is 1 wavefront.
 * Example: float tile[32][32] read by column, lane i at word 32*i: all 32
 * distinct words in bank 0, 32 wavefronts, 31 conflicts; tile[32][33]: word
 * 33*i, bank i, 1 wavefront.  An LDS.128 where lanes 0-15 read one float4
 * and lanes 16-31 another (a 16 x 16 matmul tile's row): 2 phases of 16
 * lanes, 2 wavefronts, none of them a conflict (4 without packing). */
GM_HD void gm_wr_shared_count(bool load, unsigned size, const uint64_t addr[32], uint32_t mask,
                              gm_wr_shared *o)
{
    unsigned lanes_per_phase = size <= 4 ? 32 : size == 8 ? 16 : 8;
    unsigned words_per_lane = size <= 4 ? 1 : size / 4;
    if (load && size >= 8 &&
        (gm_wr_packed_pairs(addr, mask, 1) || gm_wr_packed_pairs(addr, mask, 2)))
        lanes_per_phase *= 2;
    if (gm_wr_shared_narrow(lanes_per_phase, words_per_lane, addr, mask, o))
        return;
    o->wavefronts = 0;
    o->ideal = 0;
    o->worst = 0;
    for (unsigned p = 0; p < GM_WR_WARP / lanes_per_phase; p++) {
        uint64_t w[2 * GM_WR_WARP];   /* 32 lanes x 1, 16 x 2 or 8 x 4 words; packed: x 2 */
        int n = 0;
        for (unsigned lane = p * lanes_per_phase; lane < (p + 1) * lanes_per_phase; lane++) {
            if (!(mask >> lane & 1u))
                continue;
            for (unsigned k = 0; k < words_per_lane; k++)
                w[n++] = (addr[lane] >> 2) + k;
        }
        if (n == 0)
            continue;
        n = gm_wr_unique(w, n);
        int per_bank[GM_WR_BANKS];
        for (int b = 0; b < GM_WR_BANKS; b++)
            per_bank[b] = 0;
        int waves = 0;
        for (int i = 0; i < n; i++) {
            int b = (int)(w[i] % GM_WR_BANKS);
            if (++per_bank[b] > waves)
                waves = per_bank[b];
        }
        o->wavefronts += waves;
        o->ideal += 1;
        if (waves > o->worst)
            o->worst = waves;
    }
}

/* The ideal of Nsight Compute's Source page for shared memory ("L1 Wavefronts
 * Shared Ideal", smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal): the
 * wavefronts every active lane's bytes would take if packed, never more than
 * the access took: min(wavefronts, ceil(lanes * size / 128)).  Measured on the
 * H200 against its Source page (tests/gpu/trace_vs_ncu): an LDS.128 by lanes 0,
 * 8, 16, 24 (4 wavefronts, 64 bytes) 1; an LDS.128 whose two halves each
 * broadcast one address (2 wavefronts, the A tile of a matrix multiply) 2,
 * where the distinct bytes would give 1; a 32-way conflict 1. */
GM_HD int gm_wr_shared_ideal(int wavefronts, unsigned size, uint32_t mask)
{
    int req = (int)(((unsigned)gm_wr_popcount(mask) * size + GM_WR_WAVEFRONT_BYTES - 1) /
                    GM_WR_WAVEFRONT_BYTES);
    return wavefronts < req ? wavefronts : req;
}

#ifdef __cplusplus
}
#endif

#endif

/* spmv/trace.c — address trace of experiment 11 (kernels.cu).
 *
 * The addresses of x depend on the matrix's column indices, so the matrix is
 * rebuilt here from the seeds kernels.cu gives its generator (lengths
 * 0x5b1 + rows, entries 0x5b2 + rows, lengths 4..64, Pareto alpha 1.5) with
 * the same functions (spmv.c): the row lengths in full (on host
 * threads), and the columns only of the rows in traced warps.
 * gm_ref_csr_fill draws, for entry e (in CSR order), its column from call
 * 2e + 1 of its splitmix64 stream and its value from call 2e + 2, then sorts
 * each row's columns; call k of that stream is gm_rand_at(seed, k - 1), so a
 * row's columns can be drawn on their own (tests/test_trace.c checks them
 * against gm_ref_csr_fill).
 *
 * Per variant, as the PTX has it (every access 4 bytes unless said), the CSR
 * row loops as the SASS has them (S_csr_loop):
 *   csr_thread  thread r < rows: row_ptr[r], row_ptr[r+1]; the row's entries k
 *               (remainder of len mod 4 first, then blocks of 16, 8 and 4):
 *               col[k], x[col[k]], val[k]; store y[r]
 *   csr_warp    warp r: row_ptr[r] and row_ptr[r+1] by every lane; lane l takes
 *               entries l, l+32, ... of the row (the same loop shape over its
 *               trips); lane 0 stores y[r]
 *   ell         thread r: for k < width (the longest row), col and val at
 *               k rows + r, x[col]; padding is column 0; store y[r]
 *   jds         thread g, sorted positions 4g .. 4g+3: glen[g] (the first,
 *               longest row's length), then for d < len, in passes of 4 steps
 *               and then the remainder (gm_tloop_unrolled, passes first; the
 *               kernel keeps both loops from unrolling further): jd_quad[d],
 *               16 bytes of columns and 16 of values at quad jd_quad[d] + g,
 *               x at each of the four columns (column 0 where a row has no
 *               entry d: the diagonal's padding); perm[4g..4g+3] (16 bytes),
 *               then four stores y[perm[4g + j]]
 * Only a sample of the warps is traced, stratified by the length of the
 * longest row each warp works on and weighted here (S_pick): an estimate.
 * Rows must be a multiple of 4 (describe refuses others): jds has no partial
 * group.
 *
 * Against the H100 (docs/model.md, "Checked against an H100"): all four
 * variants traced in full gave ncu's load and store requests, sectors and
 * instructions to the unit at 2^16 and 2^18 rows of the earlier matrix (rows
 * up to 256 entries, a thread per sorted row in jds), and give them at 2^20
 * and 2^22 rows of this one (bench/results/suite-spmv-2026-11-22.json; the
 * jds loop is read from its SASS, suite-spmv-2026-11-22-jds-sass.txt, and
 * tests/test_trace.c checks jds at 2^20 rows).  The CSR kernels did so
 * only once their row loops followed the SASS: traced as their PTX has them
 * (remainder, then passes of 4), csr_thread came out 8 % under the H100's
 * load instructions and 1.3 % under its sectors, csr_warp 0.1 % under its
 * instructions.
 */
#include "spmv.h"
#include "../trace.h"

#include "../../core/buf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* kernels.cu's generator parameters and seeds */
#define S_LMIN 4
#define S_LMAX 64
#define S_ALPHA 1.5
#define S_SEED_LENGTHS(rows) (0x5b1ULL + (uint64_t)(rows))
#define S_SEED_ENTRIES(rows) (0x5b2ULL + (uint64_t)(rows))
#define S_ACCESSES 60000    /* warp accesses traced, about */
/* JDS: a traced warp's 128 rows are all about as long as its longest, and
 * drawing and sorting their columns costs about as much as tracing them */
#define S_ACCESSES_JDS 15000
/* csr_warp: a traced warp is a few accesses, but setting it up costs as much */
#define S_ACCESSES_WARP 20000

enum { S_ROWPTR, S_COL, S_VAL, S_X, S_Y, S_PERM, S_LEN, S_JDPTR };
typedef enum { S_CSR_THREAD, S_CSR_WARP, S_ELL, S_JDS } S_kind;

typedef struct {
    S_kind kind;
    int rows, width;
    int *len;         /* row lengths */
    long long *ptr;   /* CSR row pointers, rows + 1 */
    int *perm;        /* JDS: the row at each sorted position */
    long long *jd;    /* JDS: jd_quad, the diagonals' starts in quads, width + 1 */
    /* the columns of the rows of the warp being traced, sorted per row */
    int cols[GM_WARP_SIZE][S_LMAX];
    int row_of[GM_WARP_SIZE];
    /* JDS: the four rows of each lane's group, their lengths and columns */
    int jlen[GM_WARP_SIZE][4];
    int jcols[GM_WARP_SIZE][4][S_LMAX];
    /* the loop body's current row (csr_warp) */
    int warp_row;
    /* the weight of each warp in the sample (0: not traced) */
    long long *pick;
} S_ctx;

/* Sort n <= 256 ints ascending: binary insertion, each shift one memmove
 * (faster than qsort's calls through a comparison function at this size).
 * The result is the same order qsort gives gm_ref_csr_fill: ints have no ties
 * that an unstable sort could tell apart. */
static void S_sort_ints(int *a, int n)
{
    for (int i = 1; i < n; i++) {
        int v = a[i], lo = 0, hi = i;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (a[mid] <= v)
                lo = mid + 1;
            else
                hi = mid;
        }
        memmove(a + lo + 1, a + lo, (size_t)(i - lo) * sizeof *a);
        a[lo] = v;
    }
}

/* Row r's columns, sorted, into out[0 .. len[r]). */
static void S_row_cols(const S_ctx *m, int r, int *out)
{
    uint64_t seed = S_SEED_ENTRIES(m->rows);
    for (int j = 0; j < m->len[r]; j++)
        out[j] = (int)(gm_rand_at(seed, 2 * (uint64_t)(m->ptr[r] + j)) % (uint64_t)m->rows);
    S_sort_ints(out, m->len[r]);
}

static uint64_t S_at(int array, long long i)
{
    return GM_TRACE_ARRAY(array) + 4u * (uint64_t)i;
}

/* The three loads of one entry per lane: col[at], x[col], val[at] (JDS:
 * jd_ptr[d] first). */
static void S_entry(gm_tgen *g, const long long at[32], const int col[32], uint32_t active,
                    long long weight)
{
    uint64_t a[GM_WARP_SIZE], b[GM_WARP_SIZE], c[GM_WARP_SIZE];
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        a[l] = S_at(S_COL, at[l]);
        b[l] = S_at(S_X, col[l]);
        c[l] = S_at(S_VAL, at[l]);
    }
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, a, active, weight);
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, b, active, weight);
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, c, active, weight);
}

/* csr_thread: lane l at entry iter[l] of its row */
static void S_csr_thread_body(gm_tgen *g, const long long iter[32], uint32_t active,
                              long long weight, void *vctx)
{
    const S_ctx *m = vctx;
    long long at[GM_WARP_SIZE];
    int col[GM_WARP_SIZE];
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        if (!(active >> l & 1u))
            continue;
        int r = m->row_of[l];
        at[l] = m->ptr[r] + iter[l];
        col[l] = m->cols[l][iter[l]];
    }
    S_entry(g, at, col, active, weight);
}

/* csr_warp: lane l at entry l + 32 iter[l] of the warp's row */
static void S_csr_warp_body(gm_tgen *g, const long long iter[32], uint32_t active,
                            long long weight, void *vctx)
{
    const S_ctx *m = vctx;
    long long at[GM_WARP_SIZE];
    int col[GM_WARP_SIZE];
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        if (!(active >> l & 1u))
            continue;
        long long e = l + 32 * iter[l];
        at[l] = m->ptr[m->warp_row] + e;
        col[l] = m->cols[0][e];
    }
    S_entry(g, at, col, active, weight);
}

/* jds: lane l (group warp_row + l) at diagonal iter[l] */
static void S_jds_body(gm_tgen *g, const long long iter[32], uint32_t active, long long weight,
                       void *vctx)
{
    const S_ctx *m = vctx;
    uint64_t p[GM_WARP_SIZE], col[GM_WARP_SIZE], val[GM_WARP_SIZE], x[4][GM_WARP_SIZE];
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        if (!(active >> l & 1u))
            continue;
        long long d = iter[l], quad = m->jd[d] + m->warp_row + l;
        p[l] = S_at(S_JDPTR, d);
        col[l] = GM_TRACE_ARRAY(S_COL) + 16u * (uint64_t)quad;
        val[l] = GM_TRACE_ARRAY(S_VAL) + 16u * (uint64_t)quad;
        for (int j = 0; j < 4; j++)
            x[j][l] = S_at(S_X, d < m->jlen[l][j] ? m->jcols[l][j][d] : 0);
    }
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, p, active, weight);
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 16, col, active, weight);
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 16, val, active, weight);
    for (int j = 0; j < 4; j++)
        gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, x[j], active, weight);
}

/* jds: warp wi is groups 32 wi .. 32 wi + 31, sorted positions 128 wi on */
static void S_jds_warp(gm_tgen *g, const gm_twarp *w, S_ctx *m, long long first)
{
    long long groups = m->rows / 4;
    uint32_t ok = 0;
    long long trips[GM_WARP_SIZE];
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        long long gi = first + l;
        trips[l] = 0;
        if (!(w->mask >> l & 1u) || gi >= groups)
            continue;
        ok |= 1u << l;
        for (int j = 0; j < 4; j++) {
            int r = m->perm[4 * gi + j];
            m->jlen[l][j] = m->len[r];
            S_row_cols(m, r, m->jcols[l][j]);
        }
        trips[l] = m->jlen[l][0];
    }
    if (!ok)
        return;
    m->warp_row = (int)first;
    gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, S_at(S_LEN, first), 4, ok, w->weight);
    gm_tloop_unrolled(g, trips, ok, 4, false, w->weight, S_jds_body, m);
    gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 16,
                   GM_TRACE_ARRAY(S_PERM) + 16u * (uint64_t)first, 16, ok, w->weight);
    uint64_t a[GM_WARP_SIZE];
    for (int j = 0; j < 4; j++) {
        for (int l = 0; l < GM_WARP_SIZE; l++)
            a[l] = S_at(S_Y, (ok >> l & 1u) ? m->perm[4 * (first + l) + j] : 0);
        gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_STORE, 4, a, ok, w->weight);
    }
}

/* The CSR row loops as ptxas compiles them for sm_90 (read from the SASS of
 * both CSR kernels, docs/model.md "Checked against an H100").  The PTX has a
 * remainder loop of trips mod 4 iterations, then passes of 4; ptxas keeps the
 * remainder loop and unrolls the passes again, lane by lane:
 *     while (left > 12) 16 iterations;   (block A, a loop)
 *     if (left > 4)      8 iterations;   (block B)
 *     if (left > 0)      4 iterations;   (block C)
 * left being the iterations after the remainder, a multiple of 4.  A lane of
 * P = trips / 4 passes runs A P / 4 times, B when P mod 4 >= 2 and C when P
 * is odd.  No load is predicated: each block sits behind a branch, and the
 * warp runs it once with the lanes that take it, so A max(P / 4) times, B and
 * C once each when any lane takes them: a warp with lanes of 1 and of 2
 * passes runs B and C, 12 iterations, where the PTX's loop runs 2 passes, 8.
 * That is csr_thread's 8 % of load instructions beyond the PTX loop on the
 * H100 (and csr_warp's 0.1 %: its lanes' trips differ by at most one).  Lane
 * l is at iteration rem + 16 i + u in pass i of A, rem + 16 (P / 4) + u in
 * B, and that + 8 in C when it ran B (rem = trips mod 4); which lanes share
 * an instruction decides which share a sector, so the sectors move too. */
static void S_csr_loop(gm_tgen *g, const long long trips[GM_WARP_SIZE], uint32_t mask,
                       long long weight, gm_tbody_fn body, void *ctx)
{
    long long rem[GM_WARP_SIZE] = {0}, a[GM_WARP_SIZE] = {0}, it[GM_WARP_SIZE] = {0};
    long long most_rem = 0, most_a = 0;
    uint32_t in_b = 0, in_c = 0;
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        if (!(mask >> l & 1u) || trips[l] <= 0)
            continue;
        long long passes = trips[l] / 4;
        rem[l] = trips[l] % 4;
        a[l] = passes / 4;
        if (passes % 4 >= 2)
            in_b |= 1u << l;
        if (passes % 2)
            in_c |= 1u << l;
        if (rem[l] > most_rem)
            most_rem = rem[l];
        if (a[l] > most_a)
            most_a = a[l];
    }
    for (long long q = 0; q < most_rem; q++) {
        uint32_t active = 0;
        for (int l = 0; l < GM_WARP_SIZE; l++)
            if (rem[l] > q) {
                active |= 1u << l;
                it[l] = q;
            }
        body(g, it, active, weight, ctx);
    }
    for (long long i = 0; i < most_a; i++)
        for (int u = 0; u < 16; u++) {
            uint32_t active = 0;
            for (int l = 0; l < GM_WARP_SIZE; l++)
                if (a[l] > i) {
                    active |= 1u << l;
                    it[l] = rem[l] + 16 * i + u;
                }
            body(g, it, active, weight, ctx);
        }
    for (int u = 0; in_b && u < 8; u++) {
        for (int l = 0; l < GM_WARP_SIZE; l++)
            it[l] = rem[l] + 16 * a[l] + u;
        body(g, it, in_b, weight, ctx);
    }
    for (int u = 0; in_c && u < 4; u++) {
        for (int l = 0; l < GM_WARP_SIZE; l++)
            it[l] = rem[l] + 16 * a[l] + (in_b >> l & 1u ? 8 : 0) + u;
        body(g, it, in_c, weight, ctx);
    }
}

static void S_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    S_ctx *m = vctx;
    long long first = (long long)w->bid[0] * w->bdim[0] + (long long)w->warp * GM_WARP_SIZE;
    uint64_t a[GM_WARP_SIZE];
    if (m->kind == S_CSR_WARP) {
        int r = (int)(first / GM_WARP_SIZE);
        if (r >= m->rows)
            return;
        m->warp_row = r;
        S_row_cols(m, r, m->cols[0]);
        gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, S_at(S_ROWPTR, r), 0, w->mask,
                       w->weight);
        gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, S_at(S_ROWPTR, r + 1), 0, w->mask,
                       w->weight);
        long long trips[GM_WARP_SIZE];
        for (int l = 0; l < GM_WARP_SIZE; l++)
            trips[l] = l < m->len[r] ? (m->len[r] - l + 31) / 32 : 0;
        S_csr_loop(g, trips, w->mask, w->weight, S_csr_warp_body, m);
        gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_STORE, 4, S_at(S_Y, r), 0, w->mask & 1u,
                       w->weight);
        return;
    }
    if (m->kind == S_JDS) {
        S_jds_warp(g, w, m, first);
        return;
    }
    /* a thread per row (ELLPACK, CSR) */
    long long weight = w->weight;
    uint32_t ok = 0;
    long long trips[GM_WARP_SIZE];
    int maxlen = 0;
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        long long r = first + l;
        if (!(w->mask >> l & 1u) || r >= m->rows)
            continue;
        ok |= 1u << l;
        m->row_of[l] = (int)r;
        trips[l] = m->len[r];
        if (trips[l] > maxlen)
            maxlen = (int)trips[l];
        S_row_cols(m, m->row_of[l], m->cols[l]);
    }
    if (!ok)
        return;
    if (m->kind == S_CSR_THREAD) {
        gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, S_at(S_ROWPTR, first), 4, ok, weight);
        gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, S_at(S_ROWPTR, first + 1), 4, ok,
                       weight);
        S_csr_loop(g, trips, ok, weight, S_csr_thread_body, m);
    } else {
        /* ELLPACK: slots k < the warp's longest row hold data for some lane;
         * beyond it every lane reads padding (column 0), and slot k + p is
         * slot k shifted by 4 rows p bytes: folded. */
        long long at[GM_WARP_SIZE];
        int col[GM_WARP_SIZE];
        for (int k = 0; k < maxlen; k++) {
            for (int l = 0; l < GM_WARP_SIZE; l++) {
                at[l] = (long long)k * m->rows + first + l;
                col[l] = (ok >> l & 1u) && k < trips[l] ? m->cols[l][k] : 0;
            }
            S_entry(g, at, col, ok, weight);
        }
        long long pad = m->width - maxlen;
        long long reps = gm_tloop(g, pad, gm_tperiod(4 * (long long)m->rows));
        for (long long k = 0; k < reps; k++) {
            for (int l = 0; l < GM_WARP_SIZE; l++) {
                at[l] = (maxlen + k) * m->rows + first + l;
                col[l] = 0;
            }
            S_entry(g, at, col, ok, gm_tloop_weight(pad, reps, k) * weight);
        }
    }
    for (int l = 0; l < GM_WARP_SIZE; l++)
        a[l] = S_at(S_Y, (ok >> l & 1u) ? m->row_of[l] : 0);
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_STORE, 4, a, ok, weight);
}

/* What a warp's work grows with: the longest of its 32 rows (a thread per
 * row; jds: of its 128 sorted rows, four per thread: the warp lasts that many
 * steps), or its one row's length (csr_warp).  And roughly how many accesses tracing it takes. */
static int S_warp_key(const S_ctx *m, long long wi)
{
    if (m->kind == S_CSR_WARP)
        return m->len[wi];
    if (m->kind == S_JDS)   /* sorted, longest first: the warp's first row */
        return m->len[m->perm[wi * 4 * GM_WARP_SIZE]];
    int key = 0;
    for (long long r = wi * GM_WARP_SIZE; r < (wi + 1) * GM_WARP_SIZE && r < m->rows; r++)
        if (m->len[r] > key)
            key = m->len[r];
    return key;
}

static double S_warp_cost(const S_ctx *m, int key)
{
    switch (m->kind) {
    case S_CSR_WARP: return 3.0 + 3.0 * ((key + 31) / 32);
    case S_ELL: return 3.0 * key + 1.0;
    case S_JDS: return 7.0 * key + 6.0;   /* jd_quad too; 128 rows of columns to draw */
    default: return 3.0 * key + 3.0;
    }
}

/* A sample of the warps stratified by their key (S_warp_key): the row
 * lengths have a heavy tail, so a few warps carry much of the work and a
 * uniform sample of warps is noisy (a thread per row: 3 % off at 2^18 rows
 * with 512 warps).  Strata: warps whose key has floor(log2(key)) = b.
 * Stratum b of N_b warps, of mean key K_b and cost C_b each, gets
 * n_b ~ N_b K_b / sqrt(C_b) traced warps (Neyman allocation, the spread
 * taken as K_b), scaled to about `budget` accesses in all; its warps are cut
 * into groups of k_b = N_b / n_b in index order and the middle warp of each
 * group is traced with the group's size as weight.  Fills m->pick (a weight
 * per warp, 0 for the untraced) and returns the warps traced. */
static long long S_pick(S_ctx *m, long long warps, double budget)
{
    enum { BINS = 10 };
    int *bin = gm_xmalloc((size_t)warps * sizeof *bin);
    double n[BINS] = {0}, key[BINS] = {0}, cost[BINS] = {0}, all = 0.0;
    for (long long wi = 0; wi < warps; wi++) {
        int k = S_warp_key(m, wi), b = 0;
        while (b + 1 < BINS && (2 << b) <= k)
            b++;
        bin[wi] = b;
        n[b] += 1;
        key[b] += k;
        cost[b] += S_warp_cost(m, k);
    }
    double denom = 0.0;
    for (int b = 0; b < BINS; b++)
        if (n[b] > 0) {
            all += cost[b];
            denom += n[b] * (key[b] / n[b]) * sqrt(cost[b] / n[b]);
        }
    long long k[BINS], seen[BINS] = {0};
    for (int b = 0; b < BINS; b++) {
        double want = 0.0;
        if (n[b] > 0)
            want = all <= budget ? n[b]
                                 : n[b] * (key[b] / n[b]) / sqrt(cost[b] / n[b]) * budget / denom;
        k[b] = want >= n[b] ? 1 : want < 1.0 ? (long long)n[b] : (long long)(n[b] / want);
    }
    m->pick = gm_xcalloc((size_t)warps, sizeof *m->pick);
    long long traced = 0;
    for (long long wi = 0; wi < warps; wi++) {
        int b = bin[wi];
        long long i = seen[b]++, group = i / k[b];
        long long size = (long long)n[b] - group * k[b] < k[b] ? (long long)n[b] - group * k[b]
                                                                : k[b];
        if (i - group * k[b] == (size - 1) / 2) {
            m->pick[wi] = size;
            traced++;
        }
    }
    free(bin);
    return traced;
}

/* JDS order: rows by length, longest first, stable (kernels.cu,
 * S_jds_order); and the start of each jagged diagonal in quads, each padded
 * to a multiple of 4 entries. */
static void S_jds_build(S_ctx *m)
{
    long long *start = gm_xcalloc((size_t)m->width + 2, sizeof *start);
    for (int r = 0; r < m->rows; r++)
        start[m->width - m->len[r]]++;
    m->jd = gm_xmalloc(((size_t)m->width + 1) * sizeof *m->jd);
    long long longer = m->rows;   /* rows longer than d */
    m->jd[0] = 0;
    for (int d = 0; d < m->width; d++) {
        longer -= start[m->width - d];
        m->jd[d + 1] = m->jd[d] + (longer + 3) / 4;
    }
    long long acc = 0;
    for (int b = 0; b <= m->width; b++) {
        long long n = start[b];
        start[b] = acc;
        acc += n;
    }
    m->perm = gm_xmalloc((size_t)m->rows * sizeof *m->perm);
    for (int r = 0; r < m->rows; r++)
        m->perm[start[m->width - m->len[r]]++] = r;
    free(start);
}

typedef struct {
    int *len;
    uint64_t seed;
} S_len_job;

static void S_len_chunk(void *p, size_t begin, size_t end)
{
    const S_len_job *j = p;
    gm_ref_spmv_row_lengths_range(S_LMIN, S_LMAX, S_ALPHA, j->seed, (int)begin, (int)end,
                                  j->len);
}

/* The matrix's row lengths (on host threads), its row pointers and width. */
static void S_shape(S_ctx *m)
{
    m->len = gm_xmalloc((size_t)m->rows * sizeof *m->len);
    S_len_job j = {m->len, S_SEED_LENGTHS(m->rows)};
    gm_parallel_for((size_t)m->rows, GM_PAR_ELEMS, S_len_chunk, &j);
    m->ptr = gm_xmalloc(((size_t)m->rows + 1) * sizeof *m->ptr);
    m->ptr[0] = 0;
    m->width = 0;
    for (int r = 0; r < m->rows; r++) {
        m->ptr[r + 1] = m->ptr[r] + m->len[r];
        if (m->len[r] > m->width)
            m->width = m->len[r];
    }
}

gm_status spmv_trace(const gm_case *c, gm_trace *t, gm_error *err)
{
    const char *v = c->variant->name;
    long long rows = gm_case_param(c, "rows", 0);
    if (rows < 4 || rows > (1 << 24) || rows % 4 != 0)
        return gm_fail(err, GM_ERR_VALUE, "spmv/%s: rows=%lld (a multiple of 4 up to 2^24)", v,
                       rows);
    S_ctx *m = gm_xcalloc(1, sizeof *m);
    m->kind = c->variant->kind == GM_SPMV_CSR_WARP ? S_CSR_WARP
            : c->variant->kind == GM_SPMV_ELL      ? S_ELL
            : c->variant->kind == GM_SPMV_JDS      ? S_JDS
                                         : S_CSR_THREAD;
    m->rows = (int)rows;
    S_shape(m);
    if (m->kind == S_JDS)
        S_jds_build(m);
    gm_tgen g;
    gm_tgen_init(&g, t);
    gm_status st = gm_tgen_need_launch(c, err);
    if (st == GM_OK) {
        /* warp wi is rows 32 wi .. 32 wi + 31 (a thread per row), groups
         * 32 wi .. (jds) or row wi (csr_warp), warp wi % W of block wi / W */
        long long W = ((long long)c->launch.block[0] + GM_WARP_SIZE - 1) / GM_WARP_SIZE;
        long long threads = m->kind == S_JDS ? rows / 4 : rows;
        long long warps = m->kind == S_CSR_WARP ? rows
                                                : (threads + GM_WARP_SIZE - 1) / GM_WARP_SIZE;
        double budget = m->kind == S_JDS        ? S_ACCESSES_JDS
                      : m->kind == S_CSR_WARP ? S_ACCESSES_WARP
                                              : S_ACCESSES;
        long long traced = S_pick(m, warps, g.sample ? budget : 1e300);
        for (long long wi = 0; wi < warps; wi++)
            if (m->pick[wi])
                gm_tgen_one_warp(&g, c, wi / W, (int)(wi % W), m->pick[wi], S_warp, m);
        g.warps_total = (long long)c->launch.grid[0] * W;
        g.sampled = g.weighted = traced < g.warps_total;
    }
    gm_trace_note(t, "The matrix (%lld rows, %lld nonzeros, longest row %d) was regenerated "
                     "from its seeds; x is gathered through its column indices.",
                  rows, m->ptr[rows], m->width);
    if (m->kind == S_CSR_THREAD || m->kind == S_CSR_WARP)
        gm_trace_note(t, "The row loop is traced as ptxas (CUDA 13) compiles it for sm_90: "
                         "trips mod 4 first, then blocks of 16, 8 and 4 trips, each run by the "
                         "warp once for all the lanes that need it; another compiler or "
                         "architecture may unroll it differently and change the load "
                         "instruction count.");
    gm_status fin = gm_tgen_finish(&g, st == GM_OK ? err : NULL);
    free(m->len);
    free(m->ptr);
    free(m->perm);
    free(m->jd);
    free(m->pick);
    free(m);
    return st != GM_OK ? st : fin;
}

int gm_trace_spmv_row(int rows, int r, int *out)
{
    S_ctx *m = gm_xcalloc(1, sizeof *m);
    m->rows = rows;
    S_shape(m);
    S_row_cols(m, r, out);
    int n = m->len[r];
    free(m->len);
    free(m->ptr);
    free(m);
    return n;
}

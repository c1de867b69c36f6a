/* trace_spmv.c — address trace of experiment 11 (exp_spmv.cu).
 *
 * The addresses of x depend on the matrix's column indices, so the matrix is
 * rebuilt here from the seeds exp_spmv.cu gives its generator (lengths
 * 0x5b1 + rows, entries 0x5b2 + rows, lengths 4..256, Pareto alpha 1.5) with
 * the same functions (ref_b_spmv.c): the row lengths in full, and the columns
 * only of the rows in traced warps.  gm_ref_csr_fill draws, for entry e (in
 * CSR order), its column from call 2e + 1 of its splitmix64 stream and its
 * value from call 2e + 2, then sorts each row's columns; call k of that stream
 * is gm_rand_at(seed, k - 1), so a row's columns can be drawn on their own
 * (tests/test_trace.c checks them against gm_ref_csr_fill).
 *
 * Per variant, as the PTX has it (every access 4 bytes):
 *   csr_thread  thread r < rows: row_ptr[r], row_ptr[r+1]; the row's entries k
 *               in a loop unrolled 4 times, remainder first: col[k], x[col[k]],
 *               val[k]; store y[r]
 *   csr_warp    warp r: row_ptr[r] and row_ptr[r+1] by every lane; lane l takes
 *               entries l, l+32, ... of the row (unrolled 4, remainder first);
 *               lane 0 stores y[r]
 *   ell         thread r: for k < width (the longest row), col and val at
 *               k rows + r, x[col]; padding is column 0; store y[r]
 *   jds         thread s (sorted position): its row's length, then for d < len
 *               (unrolled 4, passes first) jd_ptr[d], jd_col[at], x[col],
 *               jd_val[at] with at = jd_ptr[d] + s; perm[s], store y[perm[s]]
 * Every 1 in k blocks is traced and the counts scaled: an estimate.  JDS
 * sorts the rows longest first, so its first blocks carry much of the work:
 * those are all traced, and one block per stratum of the rest, weighted.
 */
#include "trace.h"
#include "ref_b.h"

#include "../reports/buf.h"

#include <stdlib.h>
#include <string.h>

/* exp_spmv.cu's generator parameters and seeds */
#define S_LMIN 4
#define S_LMAX 256
#define S_ALPHA 1.5
#define S_SEED_LENGTHS(rows) (0x5b1ULL + (uint64_t)(rows))
#define S_SEED_ENTRIES(rows) (0x5b2ULL + (uint64_t)(rows))
#define S_WARPS_ROW 512     /* warps traced at most, a thread per row */
#define S_WARPS_WARP 4096   /* a warp per row */
#define S_HEAD_LEN 128       /* JDS: blocks starting with rows this long are all traced */

enum { S_ROWPTR, S_COL, S_VAL, S_X, S_Y, S_PERM, S_LEN, S_JDPTR };
typedef enum { S_CSR_THREAD, S_CSR_WARP, S_ELL, S_JDS } S_kind;

typedef struct {
    S_kind kind;
    int rows, width;
    int *len;         /* row lengths */
    long long *ptr;   /* CSR row pointers, rows + 1 */
    int *perm;        /* JDS: the row at each sorted position */
    long long *jd;    /* JDS: jd_ptr, width + 1 */
    /* the columns of the rows of the warp being traced, sorted per row */
    int cols[GM_WARP_SIZE][S_LMAX];
    int row_of[GM_WARP_SIZE];
    /* the loop body's current row (csr_warp) */
    int warp_row;
} S_ctx;

static int S_cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Row r's columns, sorted, into out[0 .. len[r]). */
static void S_row_cols(const S_ctx *m, int r, int *out)
{
    uint64_t seed = S_SEED_ENTRIES(m->rows);
    for (int j = 0; j < m->len[r]; j++)
        out[j] = (int)(gm_rand_at(seed, 2 * (uint64_t)(m->ptr[r] + j)) % (uint64_t)m->rows);
    qsort(out, (size_t)m->len[r], sizeof *out, S_cmp_int);
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

/* jds: lane l at diagonal iter[l] of sorted position s_l (row row_of[l]) */
static void S_jds_body(gm_tgen *g, const long long iter[32], uint32_t active, long long weight,
                       void *vctx)
{
    const S_ctx *m = vctx;
    uint64_t p[GM_WARP_SIZE];
    long long at[GM_WARP_SIZE];
    int col[GM_WARP_SIZE];
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        if (!(active >> l & 1u))
            continue;
        p[l] = S_at(S_JDPTR, iter[l]);
        at[l] = m->jd[iter[l]] + m->warp_row + l;   /* warp_row: the warp's first position */
        col[l] = m->cols[l][iter[l]];
    }
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, p, active, weight);
    S_entry(g, at, col, active, weight);
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
        gm_tloop_unrolled(g, trips, w->mask, 4, true, w->weight, S_csr_warp_body, m);
        gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_STORE, 4, S_at(S_Y, r), 0, w->mask & 1u,
                       w->weight);
        return;
    }
    /* a thread per row (ELLPACK, CSR) or per sorted position (JDS) */
    uint32_t ok = 0;
    long long trips[GM_WARP_SIZE];
    int maxlen = 0;
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        long long r = first + l;
        if (!(w->mask >> l & 1u) || r >= m->rows)
            continue;
        ok |= 1u << l;
        m->row_of[l] = m->kind == S_JDS ? m->perm[r] : (int)r;
        trips[l] = m->len[m->row_of[l]];
        if (trips[l] > maxlen)
            maxlen = (int)trips[l];
        S_row_cols(m, m->row_of[l], m->cols[l]);
    }
    if (!ok)
        return;
    if (m->kind == S_CSR_THREAD) {
        gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, S_at(S_ROWPTR, first), 4, ok, w->weight);
        gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, S_at(S_ROWPTR, first + 1), 4, ok,
                       w->weight);
        gm_tloop_unrolled(g, trips, ok, 4, true, w->weight, S_csr_thread_body, m);
    } else if (m->kind == S_JDS) {
        m->warp_row = (int)first;
        gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, S_at(S_LEN, first), 4, ok, w->weight);
        gm_tloop_unrolled(g, trips, ok, 4, false, w->weight, S_jds_body, m);
        gm_tgen_affine(g, GM_SPACE_GLOBAL, GM_OP_LOAD, 4, S_at(S_PERM, first), 4, ok, w->weight);
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
            S_entry(g, at, col, ok, w->weight);
        }
        long long pad = m->width - maxlen;
        long long reps = gm_tloop(g, pad, gm_tperiod(4 * (long long)m->rows));
        for (long long k = 0; k < reps; k++) {
            for (int l = 0; l < GM_WARP_SIZE; l++) {
                at[l] = (maxlen + k) * m->rows + first + l;
                col[l] = 0;
            }
            S_entry(g, at, col, ok, gm_tloop_weight(pad, reps, k) * w->weight);
        }
    }
    for (int l = 0; l < GM_WARP_SIZE; l++)
        a[l] = S_at(S_Y, (ok >> l & 1u) ? m->row_of[l] : 0);
    gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_STORE, 4, a, ok, w->weight);
}

/* JDS order: rows by length, longest first, stable (gm_ref_csr_to_jds); and
 * the start of each jagged diagonal. */
static void S_jds_build(S_ctx *m)
{
    long long *start = gm_xcalloc((size_t)m->width + 2, sizeof *start);
    for (int r = 0; r < m->rows; r++)
        start[m->width - m->len[r]]++;
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
    /* diagonal d holds one entry of each row longer than d */
    long long *longer = gm_xcalloc((size_t)m->width + 1, sizeof *longer);
    for (int r = 0; r < m->rows; r++)
        if (m->len[r] > 0)
            longer[m->len[r] - 1]++;   /* rows of length L count for d < L */
    m->jd = gm_xmalloc(((size_t)m->width + 1) * sizeof *m->jd);
    long long count = 0;   /* rows longer than d */
    for (int r = 0; r < m->rows; r++)
        count += m->len[r] > 0;
    m->jd[0] = 0;
    for (int d = 0; d < m->width; d++) {
        m->jd[d + 1] = m->jd[d] + count;
        count -= longer[d];
    }
    free(longer);
}

gm_status spmv_trace(const gm_case *c, gm_trace *t, gm_error *err)
{
    const char *v = c->variant->name;
    long long rows = gm_case_param(c, "rows", 0);
    if (rows < 1 || rows > (1 << 24))
        return gm_fail(err, GM_ERR_VALUE, "spmv/%s: rows=%lld", v, rows);
    S_ctx *m = gm_xcalloc(1, sizeof *m);
    m->kind = strcmp(v, "csr_warp") == 0 ? S_CSR_WARP
            : strcmp(v, "ell") == 0      ? S_ELL
            : strcmp(v, "jds") == 0      ? S_JDS
                                         : S_CSR_THREAD;
    m->rows = (int)rows;
    m->len = gm_xmalloc((size_t)rows * sizeof *m->len);
    m->width = gm_ref_spmv_row_lengths(m->rows, S_LMIN, S_LMAX, S_ALPHA, S_SEED_LENGTHS(rows),
                                       m->len);
    m->ptr = gm_xmalloc(((size_t)rows + 1) * sizeof *m->ptr);
    m->ptr[0] = 0;
    for (long long r = 0; r < rows; r++)
        m->ptr[r + 1] = m->ptr[r] + m->len[r];
    if (m->kind == S_JDS)
        S_jds_build(m);
    gm_tgen g;
    gm_tgen_init(&g, t);
    gm_status st;
    if (m->kind == S_JDS) {
        /* Sorted longest first, the first blocks hold the longest rows and
         * most of the work: every block whose first row has S_HEAD_LEN
         * entries or more is traced, a stratified sample of the rest. */
        long long heavy = 0;
        while (heavy < rows && m->len[m->perm[heavy]] >= S_HEAD_LEN)
            heavy++;
        long long bdim = c->launch.block[0] > 0 ? c->launch.block[0] : 1;
        st = gm_tgen_grid_sample_head(&g, c, S_WARPS_ROW, (heavy + bdim - 1) / bdim, S_warp, m,
                                      err);
    } else {
        st = gm_tgen_grid_sample(&g, c, m->kind == S_CSR_WARP ? S_WARPS_WARP : S_WARPS_ROW,
                                 S_warp, m, err);
    }
    gm_trace_note(t, "The matrix (%lld rows, %lld nonzeros, longest row %d) was regenerated "
                     "from its seeds; x is gathered through its column indices.",
                  rows, m->ptr[rows], m->width);
    gm_status fin = gm_tgen_finish(&g, st == GM_OK ? err : NULL);
    free(m->len);
    free(m->ptr);
    free(m->perm);
    free(m->jd);
    free(m);
    return st != GM_OK ? st : fin;
}

int gm_trace_spmv_row(int rows, int r, int *out)
{
    S_ctx *m = gm_xcalloc(1, sizeof *m);
    m->rows = rows;
    m->len = gm_xmalloc((size_t)rows * sizeof *m->len);
    m->width = gm_ref_spmv_row_lengths(rows, S_LMIN, S_LMAX, S_ALPHA, S_SEED_LENGTHS(rows), m->len);
    m->ptr = gm_xmalloc(((size_t)rows + 1) * sizeof *m->ptr);
    m->ptr[0] = 0;
    for (int k = 0; k < rows; k++)
        m->ptr[k + 1] = m->ptr[k] + m->len[k];
    S_row_cols(m, r, out);
    int n = m->len[r];
    free(m->len);
    free(m->ptr);
    free(m);
    return n;
}

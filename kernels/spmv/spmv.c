/* spmv.c — experiment 11, sparse matrix-vector product in CSR, ELLPACK and JDS: the CPU side of
 * its variants.
 *
 * The experiment as data: its description (gm_exp_spmv: the question, the
 * contrast that answers it, the sweep) and its rows (gm_spmv_rows, one per
 * variant), which suite.c lists; describe (what a case launches and must
 * move, from its parameters alone); and the CPU reference the GPU output is
 * checked against.  Plain C, no CUDA; the kernels are in kernels.cu, the
 * address trace in trace.c.
 */
#include "spmv.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the experiment: its description and its rows ------------------------- */

const gm_experiment_def gm_exp_spmv = {
    .id = "spmv",
    .title = "Sparse matrix-vector product: CSR, ELLPACK, JDS",
    .summary =
        "y = Ax for one sparse matrix whose row lengths follow a power law, in four layouts. "
        "A thread per CSR row reads entries rows apart and waits for the longest row of its "
        "warp; a warp per row reads each row contiguously but idles lanes on short rows; "
        "ELLPACK pads every row to the longest so each step is coalesced, and reads the "
        "padding; JDS sorts rows by length and stores their k-th entries together, coalesced "
        "without the padding, four rows to a thread with 16-byte loads. The reads of x are "
        "scattered in every layout: each nonzero gathers one 4-byte value at a random column, "
        "an L2 lookup and a 32-byte sector for 8 bytes of matrix. With x in L2 the rate of "
        "those lookups, not DRAM, sets the pace, so no layout of this matrix comes near copy "
        "bandwidth; only columns close enough for x to stay in L1 would (the ceiling and the "
        "counters that show it: bench/results/suite-spmv-2026-11-22*.txt).",
    .source =
        "an untitled article on memory coalescing (CSR with a thread per row, ELLPACK, "
        "JDS)",
    .sweep_param = "rows",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "csr_thread",
    .question =
        "Does reordering the rows into jagged diagonals (JDS) beat CSR with a thread per "
        "row on the same matrix?",
    .contrast_a = "csr_thread",
    .contrast_b = "jds",
    .contrast_at = NULL,
    .contrast_counter = "ld_sectors",
};

/* Rows of 4..64 entries: 2^22 rows hold 40 M nonzeros (320 MB in CSR, with x
 * and y 370 MB to move once; 2 GiB padded to ELLPACK, built on the device). */
#define S_SP_ROWS {"rows", GM_VALUES(1 << 20, 1 << 22), GM_VALUES(1 << 14)}

const gm_variant gm_spmv_rows[] = {
    {.experiment = &gm_exp_spmv,
     .name = "csr_thread",
     .layout = "CSR, a thread per row: a warp's k-th entries lie rows apart; the warp waits "
               "for its longest row",
     .params = {S_SP_ROWS},
     GM_FNS(spmv),
     .kind = GM_SPMV_CSR_THREAD,
     .launch = GM_GPU(spmv_launch_csr_thread),
     .trace = spmv_trace,
     .idempotent = true},
    {.experiment = &gm_exp_spmv,
     .name = "csr_warp",
     .layout = "CSR, a warp per row: lanes read consecutive entries, then a shuffle reduction",
     .params = {S_SP_ROWS},
     GM_FNS(spmv),
     .kind = GM_SPMV_CSR_WARP,
     .launch = GM_GPU(spmv_launch_csr_warp),
     .trace = spmv_trace,
     .idempotent = true},
    {.experiment = &gm_exp_spmv,
     .name = "ell",
     .layout = "ELLPACK, column-major, every row padded to the longest: coalesced, padding "
               "read",
     .params = {S_SP_ROWS},
     GM_FNS(spmv),
     .kind = GM_SPMV_ELL,
     .launch = GM_GPU(spmv_launch_ell),
     .trace = spmv_trace,
     .idempotent = true},
    {.experiment = &gm_exp_spmv,
     .name = "jds",
     .layout = "jagged diagonals: rows sorted by length, k-th entries contiguous; a thread "
               "takes four sorted rows with one 16-byte load per array",
     .params = {S_SP_ROWS},
     GM_FNS(spmv),
     .kind = GM_SPMV_JDS,
     .launch = GM_GPU(spmv_launch_jds),
     .trace = spmv_trace,
     .idempotent = true},
};
const size_t gm_spmv_rows_len = sizeof gm_spmv_rows / sizeof gm_spmv_rows[0];

/* ---- describe ------------------------------------------------------------- */

static uint64_t S_seed_lengths(long long rows)
{
    return 0x5b1ULL + (uint64_t)rows;
}

typedef struct {
    int *len;
    uint64_t seed;
} S_len_job;

static void S_len_chunk(void *p, size_t begin, size_t end)
{
    const S_len_job *j = (const S_len_job *)p;
    gm_ref_spmv_row_lengths_range(SPMV_LMIN, SPMV_LMAX, SPMV_ALPHA, j->seed, (int)begin,
                                  (int)end, j->len);
}

/* The row lengths of the matrix of `rows` rows, on host threads. */
void gm_spmv_lengths(int rows, int *len)
{
    S_len_job j = {len, S_seed_lengths(rows)};
    gm_parallel_for((size_t)rows, GM_PAR_ELEMS, S_len_chunk, &j);
}

/* describe runs for every case, and again for listings and traces: the
 * nonzero counts of the last few sizes are kept (drawing 2^22 lengths is
 * ~0.1 s on one core, ~10 ms on 16). */
static struct {
    int rows, longest;
    long long nnz;
} S_counts[4];
static int S_counts_next;

long long gm_spmv_count(int rows, int *longest)
{
    for (int i = 0; i < 4; ++i)
        if (S_counts[i].rows == rows) {
            *longest = S_counts[i].longest;
            return S_counts[i].nnz;
        }
    int *len = (int *)gm_xmalloc((size_t)rows * sizeof(int));
    gm_spmv_lengths(rows, len);
    long long nnz = 0;
    int most = 0;
    for (int r = 0; r < rows; ++r) {
        nnz += len[r];
        most = len[r] > most ? len[r] : most;
    }
    free(len);
    S_counts[S_counts_next].rows = rows;
    S_counts[S_counts_next].longest = most;
    S_counts[S_counts_next].nnz = nnz;
    S_counts_next = (S_counts_next + 1) % 4;
    *longest = most;
    return nnz;
}

gm_status spmv_describe(gm_case *c, gm_error *err)
{
    long long rows = gm_case_param(c, "rows", 0);
    if (rows < 32 || rows > (1 << 24) || rows % 4 != 0)
        return gm_fail(err, GM_ERR_VALUE,
                       "spmv/%s: rows = %lld is not a multiple of 4 in 32..2^24 (jds reads "
                       "four rows per 16-byte load)",
                       c->variant->name, rows);
    long long threads;
    if (c->variant->kind == GM_SPMV_CSR_WARP)
        threads = rows * 32;
    else if (c->variant->kind == GM_SPMV_CSR_THREAD || c->variant->kind == GM_SPMV_ELL)
        threads = rows;
    else if (c->variant->kind == GM_SPMV_JDS)
        threads = rows / 4;
    else
        return gm_fail(err, GM_ERR_VALUE, "spmv: unknown variant '%s'", c->variant->name);
    gm_case_set_shape(c, (unsigned)((threads + SPMV_BLOCK - 1) / SPMV_BLOCK), 1, 1, SPMV_BLOCK, 1,
                      1, 0);
    snprintf(c->kernel, sizeof c->kernel, "spmv_kernel_%s", c->variant->name);
    /* must move: the matrix once in CSR form (value and column index per
     * nonzero, rows+1 row pointers) and x once; y once.  The same for every
     * format, so the effective bandwidth shows what a format wastes: ELLPACK's
     * padding, the 32-byte sector each gather of x moves for 4 bytes (in every
     * format), JDS's perm and group lengths (5 bytes a row where CSR has 4 of
     * row pointer) and its diagonals' padding (under 3 entries each). */
    int longest;
    long long nnz = gm_spmv_count((int)rows, &longest);
    c->bytes_read = nnz * 8 + (rows + 1) * 4 + rows * 4;
    c->bytes_written = rows * 4;
    c->flops = 2 * nnz;
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

#include <math.h>
#include <stdlib.h>

/* Length of the next row: floor(lmin * u^(-1/alpha)), u uniform in (0, 1]
 * (53 random bits, never 0 so the power stays finite), capped at lmax. */
static int S_next_len(uint64_t *st, int lmin, int lmax, double alpha)
{
    double u = (double)((gm_rand_next(st) >> 11) + 1) * (1.0 / 9007199254740992.0);
    double l = floor((double)lmin * pow(u, -1.0 / alpha));
    return l > (double)lmax ? lmax : (int)l;
}

/* splitmix64 adds this to its state before each output: call k + 1 of the
 * stream started at seed is the one whose state starts at seed + k * gamma,
 * which is what lets the range forms start anywhere. */
#define S_GAMMA 0x9e3779b97f4a7c15ULL

/* Row r's length is call r + 1 of the stream. */
void gm_ref_spmv_row_lengths_range(int lmin, int lmax, double alpha, uint64_t seed, int begin,
                                   int end, int *len)
{
    for (int r = begin; r < end; ++r) {
        uint64_t st = seed + (uint64_t)r * S_GAMMA;
        len[r] = S_next_len(&st, lmin, lmax, alpha);
    }
}

int gm_ref_spmv_row_lengths(int rows, int lmin, int lmax, double alpha, uint64_t seed,
                            int *len)
{
    gm_ref_spmv_row_lengths_range(lmin, lmax, alpha, seed, 0, rows, len);
    int longest = 0;
    for (int r = 0; r < rows; ++r)
        if (len[r] > longest)
            longest = len[r];
    return longest;
}

long long gm_ref_spmv_count(int rows, int lmin, int lmax, double alpha, uint64_t seed,
                            int *longest)
{
    uint64_t st = seed;
    long long nnz = 0;
    *longest = 0;
    for (int r = 0; r < rows; ++r) {
        int n = S_next_len(&st, lmin, lmax, alpha);
        nnz += n;
        if (n > *longest)
            *longest = n;
    }
    return nnz;
}

/* Sort n ints ascending (rows are short: insertion sort).  Ints have no ties
 * an unstable sort could tell apart, so any correct sort gives this order. */
static void S_sort_ints(int *a, int n)
{
    for (int i = 1; i < n; ++i) {
        int v = a[i], j = i;
        for (; j > 0 && a[j - 1] > v; --j)
            a[j] = a[j - 1];
        a[j] = v;
    }
}

/* Entry e (in CSR order) takes its column from call 2e + 1 of the stream and
 * its value from call 2e + 2; then each row's columns are sorted. */
void gm_ref_csr_fill_range(int cols, const int *row_ptr, uint64_t seed, int begin, int end,
                           int *col, float *val)
{
    for (int r = begin; r < end; ++r) {
        int beg = row_ptr[r], n = row_ptr[r + 1] - beg;
        uint64_t st = seed + 2 * (uint64_t)beg * S_GAMMA;
        for (int k = 0; k < n; ++k) {
            col[beg + k] = (int)(gm_rand_next(&st) % (uint64_t)cols);
            val[beg + k] = gm_rand_uniform_f32(&st, 0.5f, 1.5f);
        }
        S_sort_ints(col + beg, n);
    }
}

void gm_ref_csr_fill(int rows, int cols, const int *len, uint64_t seed, int *row_ptr,
                     int *col, float *val)
{
    row_ptr[0] = 0;
    for (int r = 0; r < rows; ++r)
        row_ptr[r + 1] = row_ptr[r] + len[r];
    gm_ref_csr_fill_range(cols, row_ptr, seed, 0, rows, col, val);
}

void gm_ref_csr_to_ell(int rows, const int *row_ptr, const int *col, const float *val,
                       int width, int *ell_col, float *ell_val)
{
    for (int r = 0; r < rows; ++r)
        for (int k = 0; k < width; ++k) {
            size_t at = (size_t)k * rows + r;
            int src = row_ptr[r] + k;
            if (src < row_ptr[r + 1]) {
                ell_col[at] = col[src];
                ell_val[at] = val[src];
            } else {
                ell_col[at] = 0;
                ell_val[at] = 0.0f;
            }
        }
}

static int S_len(const int *row_ptr, int r)
{
    return row_ptr[r + 1] - row_ptr[r];
}

gm_status gm_ref_csr_to_jds(int rows, const int *row_ptr, const int *col, const float *val,
                            int width, int *perm, int *jd_ptr, int *jd_col, float *jd_val)
{
    /* counting sort by length, longest first, stable within a length */
    int *start = calloc((size_t)width + 2, sizeof *start);
    if (!start)
        return GM_ERR_NOMEM;
    for (int r = 0; r < rows; ++r)
        start[width - S_len(row_ptr, r)]++;   /* bucket 0 = longest */
    for (int b = 0, acc = 0; b <= width; ++b) {
        int n = start[b];
        start[b] = acc;
        acc += n;
    }
    for (int r = 0; r < rows; ++r)
        perm[start[width - S_len(row_ptr, r)]++] = r;
    free(start);

    /* diagonal d holds one entry of each sorted row longer than d; sorted rows
     * are longest first, so those are the first count(d) of them */
    int s = rows;
    jd_ptr[0] = 0;
    for (int d = 0; d < width; ++d) {
        while (s > 0 && S_len(row_ptr, perm[s - 1]) <= d)
            --s;
        for (int t = 0; t < s; ++t) {
            int src = row_ptr[perm[t]] + d;
            jd_col[jd_ptr[d] + t] = col[src];
            jd_val[jd_ptr[d] + t] = val[src];
        }
        jd_ptr[d + 1] = jd_ptr[d] + s;
    }
    return GM_OK;
}

void gm_ref_spmv_csr_range(const int *row_ptr, const int *col, const float *val,
                           const float *x, float *y, int begin, int end)
{
    for (int r = begin; r < end; ++r) {
        double s = 0.0;
        for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k)
            s += (double)val[k] * x[col[k]];
        y[r] = (float)s;
    }
}

void gm_ref_spmv_csr(int rows, const int *row_ptr, const int *col, const float *val,
                     const float *x, float *y)
{
    gm_ref_spmv_csr_range(row_ptr, col, val, x, y, 0, rows);
}

void gm_ref_spmv_ell(int rows, int width, const int *ell_col, const float *ell_val,
                     const float *x, float *y)
{
    for (int r = 0; r < rows; ++r) {
        double s = 0.0;
        for (int k = 0; k < width; ++k) {
            size_t at = (size_t)k * rows + r;
            s += (double)ell_val[at] * x[ell_col[at]];
        }
        y[r] = (float)s;
    }
}

void gm_ref_spmv_jds(int rows, int width, const int *perm, const int *jd_ptr,
                     const int *jd_col, const float *jd_val, const float *x, float *y)
{
    for (int s = 0; s < rows; ++s) {
        double sum = 0.0;
        for (int d = 0; d < width && s < jd_ptr[d + 1] - jd_ptr[d]; ++d)
            sum += (double)jd_val[jd_ptr[d] + s] * x[jd_col[jd_ptr[d] + s]];
        y[perm[s]] = (float)sum;
    }
}

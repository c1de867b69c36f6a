/* alignment.c — experiment 2, a coalesced read shifted off alignment: the CPU side of its variants.
 *
 * describe (what a case launches and must move, from its parameters alone)
 * and the CPU reference the GPU output is checked against.  Plain C, no
 * CUDA; the kernels are in kernels.cu, the address trace in trace.c.
 */
#include "alignment.h"

#include "../../core/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- describe ------------------------------------------------------------- */

gm_status alignment_describe(gm_case *c, gm_error *err)
{
    long long n = gm_case_param(c, "n", 0), off = gm_case_param(c, "offset", 0);
    int w = gm_alignment_width(c);
    if (n <= 0 || n % 4 != 0 || n > (1ll << 32) || off < 0 || off > 4 * ALIGNMENT_PAD ||
        off % 4 != 0)
        return gm_fail(err, GM_ERR_VALUE,
                       "alignment/%s: n=%lld, offset=%lld: need n a positive multiple of 4 "
                       "(at most 2^32) and offset a multiple of 4 bytes in [0, %d]",
                       c->variant->name, n, off, 4 * ALIGNMENT_PAD);
    snprintf(c->kernel, sizeof c->kernel, "alignment_kernel_%s", c->variant->name);
    c->launch.grid[0] = (unsigned)((n / w + ALIGNMENT_BLOCK - 1) / ALIGNMENT_BLOCK);
    c->launch.grid[1] = c->launch.grid[2] = 1;
    c->launch.block[0] = ALIGNMENT_BLOCK;
    c->launch.block[1] = c->launch.block[2] = 1;
    c->launch.shared_bytes = 0;
    c->launch.registers = -1;
    /* Each source float read once, each output float written once. */
    c->bytes_read = 4 * n;
    c->bytes_written = 4 * n;
    c->flops = -1;
    /* A warp request covers 32*4*w bytes from `off` (mod 128; the base is
     * 512-byte aligned): lines and sectors it touches. */
    long long span = 128ll * w, b = off % 128;
    long long lines = (b + span + 127) / 128, sectors = (b % 32 + span + 31) / 32;
    snprintf(c->note, sizeof c->note,
             "each warp request: %lld bytes starting %lld bytes into a 128-byte line: "
             "%lld line%s, %lld sectors of 32 B (%lld needed)",
             span, b, lines, lines == 1 ? "" : "s", sectors, span / 32);
    return GM_OK;
}

/* ---- CPU reference -------------------------------------------------------- */

#include <string.h>

void gm_ref_alignment(const float *in, float *out, size_t n, size_t offset_floats)
{
    memcpy(out, in + offset_floats, n * sizeof *out);
}

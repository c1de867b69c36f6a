/* aos_soa/trace.c — address trace of experiment 3 (kernels.cu).
 *
 * Thread i < n works on particle i.  Per variant and step, the loads and
 * stores the PTX has (every field a separate 4-byte access unless said):
 *   aos energy      loads vx, vy, vz, m at 28i + 12, 16, 20, 24; stores e[i]
 *   aos step        loads the 7 fields at 28i + 4f, stores the 7 at 28i + 4f
 *   soa energy      loads plane f at 4(f n + i) for vx, vy, vz, m; stores e[i]
 *   soa step        loads the 7 planes (vx..vz once each, though the source
 *                   reads them twice), stores the 7 planes
 *   padded energy   one 16-byte load at 32i + 16 (vx, vy, vz, m); stores e[i]
 *   padded step     16-byte loads at 32i and 32i + 16, 16-byte stores alike
 */
#include "aos_soa.h"
#include "../trace.h"


enum { S_IN, S_OUT };
enum { S_AOS, S_SOA, S_PADDED };

typedef struct {
    long long n;
    int layout;
    bool energy;
} S_ctx;

static const int S_energy_fields[4] = {GM_P_VX, GM_P_VY, GM_P_VZ, GM_P_M};

/* Field f of particle i of the input (array S_IN) or output (S_OUT) in the
 * layout: the byte address, and the access size. */
static uint64_t S_field(const S_ctx *x, int array, long long i, int f)
{
    switch (x->layout) {
    case S_SOA: return GM_TRACE_ARRAY(array) + 4u * (uint64_t)(f * x->n + i);
    case S_PADDED: return GM_TRACE_ARRAY(array) + 32u * (uint64_t)i + (f >= GM_P_VX ? 16u : 0u);
    default: return GM_TRACE_ARRAY(array) + 28u * (uint64_t)i + 4u * (uint64_t)f;
    }
}

static void S_warp(gm_tgen *g, const gm_twarp *w, void *vctx)
{
    const S_ctx *x = vctx;
    long long idx[GM_WARP_SIZE];
    uint32_t mask = 0;
    for (int l = 0; l < GM_WARP_SIZE; l++) {
        idx[l] = (long long)w->bid[0] * w->bdim[0] + w->tid[0][l];
        if ((w->mask >> l & 1u) && idx[l] < x->n)
            mask |= 1u << l;
    }
    uint64_t a[GM_WARP_SIZE];
    /* The list of (array, field, op) accesses of the kernel. */
    int fields[GM_P_FIELDS];
    int nf = 0;
    if (x->layout == S_PADDED) {
        /* two halves: (x, y, z, pad) and (vx, vy, vz, m), 16 bytes each */
        if (!x->energy)
            fields[nf++] = GM_P_X;
        fields[nf++] = GM_P_VX;
    } else if (x->energy) {
        for (int k = 0; k < 4; k++)
            fields[nf++] = S_energy_fields[k];
    } else {
        for (int f = 0; f < GM_P_FIELDS; f++)
            fields[nf++] = f;
    }
    unsigned size = x->layout == S_PADDED ? 16u : 4u;
    for (int k = 0; k < nf; k++) {
        for (int l = 0; l < GM_WARP_SIZE; l++)
            a[l] = (mask >> l & 1u) ? S_field(x, S_IN, idx[l], fields[k]) : 0;
        gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_LOAD, size, a, mask, w->weight);
    }
    if (x->energy) {
        for (int l = 0; l < GM_WARP_SIZE; l++)
            a[l] = GM_TRACE_ARRAY(S_OUT) + 4u * (uint64_t)idx[l];
        gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_STORE, 4, a, mask, w->weight);
        return;
    }
    for (int k = 0; k < nf; k++) {
        for (int l = 0; l < GM_WARP_SIZE; l++)
            a[l] = (mask >> l & 1u) ? S_field(x, S_OUT, idx[l], fields[k]) : 0;
        gm_tgen_access(g, GM_SPACE_GLOBAL, GM_OP_STORE, size, a, mask, w->weight);
    }
}

gm_status aos_soa_trace(const gm_case *c, gm_trace *t, gm_error *err)
{
    const char *v = c->variant->name;
    S_ctx x;
    x.layout = c->variant->kind == GM_AOS_SOA_SOA          ? S_SOA
               : c->variant->kind == GM_AOS_SOA_AOS_PADDED ? S_PADDED
                                                           : S_AOS;
    x.n = gm_case_param(c, "n", 0);
    long long fields = gm_case_param(c, "fields", 7);
    if (x.n <= 0 || (fields != 4 && fields != 7))
        return gm_fail(err, GM_ERR_VALUE, "aos_soa/%s: n=%lld, fields=%lld", v, x.n, fields);
    x.energy = fields == 4;
    /* A block of B particles moves 28B, 32B or 4B bytes per access: multiples
     * of 128 for B = 256, so all full blocks are alike. */
    long long b = c->launch.block[0];
    long long p = gm_tlcm(gm_tlcm(gm_tperiod(28 * b), gm_tperiod(32 * b)), gm_tperiod(4 * b));
    gm_tfold f = {{p, 0, 0}, {1, 0, 0}};
    gm_tgen g;
    gm_tgen_init(&g, t);
    gm_status st = gm_tgen_grid(&g, c, &f, S_warp, &x, err);
    gm_status fin = gm_tgen_finish(&g, st == GM_OK ? err : NULL);
    return st != GM_OK ? st : fin;
}

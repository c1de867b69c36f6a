/* case.c — parameters, sweeps and cases: a row of the table expanded into
 * the cases the runner sets up, and what describe fills in a case (see
 * case.h).  Plain C, no CUDA.
 */
#include "case.h"

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

/* ---- launch shape --------------------------------------------------------- */

void gm_case_set_shape(gm_case *c, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, long long shared_bytes)
{
    c->launch.grid[0] = gx;
    c->launch.grid[1] = gy;
    c->launch.grid[2] = gz;
    c->launch.block[0] = bx;
    c->launch.block[1] = by;
    c->launch.block[2] = bz;
    c->launch.shared_bytes = shared_bytes;
    c->launch.registers = -1;
}

/* select.c — which experiments and variants a run selects (--only, --skip,
 * --variants) and the errors of a selection that names nothing; see
 * runner.h.  Plain C, no CUDA: tests/test_suite.c runs it anywhere. */
#include "runner.h"

#include "../core/buf.h"

#include <stdlib.h>
#include <string.h>

/* ---- selection ------------------------------------------------------------ */

static bool S_in(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] && strcmp(list[i], s) == 0)
            return true;
    return false;
}

bool gm_suite_selects_experiment(const gm_suite_opts *o, const gm_experiment_def *e)
{
    if (o->n_only > 0 && !S_in(o->only, o->n_only, e->id))
        return false;
    return !S_in(o->skip, o->n_skip, e->id);
}

/* An entry "exp/variant" names one row; a bare "variant" names that variant
 * in every experiment that has one. */
static bool S_variant_matches(const char *sel, const gm_variant *v)
{
    const char *slash = strchr(sel, '/');
    if (!slash)
        return strcmp(sel, v->name) == 0;
    size_t elen = (size_t)(slash - sel);
    return strlen(v->experiment->id) == elen && strncmp(sel, v->experiment->id, elen) == 0 &&
           strcmp(slash + 1, v->name) == 0;
}

bool gm_suite_selects_variant(const gm_suite_opts *o, const gm_variant *v)
{
    if (!gm_suite_selects_experiment(o, v->experiment))
        return false;
    if (o->n_variants == 0)
        return true;
    for (size_t i = 0; i < o->n_variants; i++)
        if (o->variants[i] && S_variant_matches(o->variants[i], v))
            return true;
    return false;
}

static char *S_experiment_ids(void)
{
    gm_buf b = GM_BUF_INIT;
    for (size_t i = 0; i < gm_experiments_len; i++)
        gm_buf_printf(&b, "%s%s", i ? ", " : "", gm_experiments[i]->id);
    return gm_buf_detach(&b);
}

static char *S_variant_names(void)
{
    gm_buf b = GM_BUF_INIT;
    for (size_t i = 0; i < gm_suite_len; i++)
        gm_buf_printf(&b, "%s%s/%s", i ? ", " : "", gm_suite[i].experiment->id, gm_suite[i].name);
    return gm_buf_detach(&b);
}

static gm_status S_unknown_experiment(const char *opt, const char *id, gm_error *err)
{
    char *valid = S_experiment_ids();
    gm_status st = gm_fail(err, GM_ERR_VALUE, "%s: unknown experiment '%s'; valid ids: %s", opt,
                           id ? id : "(null)", valid);
    free(valid);
    return st;
}

gm_status gm_suite_select_check(const gm_suite_opts *o, gm_error *err)
{
    for (size_t i = 0; i < o->n_only; i++)
        if (!o->only[i] || !gm_experiment_find(o->only[i]))
            return S_unknown_experiment("--only", o->only[i], err);
    for (size_t i = 0; i < o->n_skip; i++)
        if (!o->skip[i] || !gm_experiment_find(o->skip[i]))
            return S_unknown_experiment("--skip", o->skip[i], err);
    for (size_t i = 0; i < o->n_variants; i++) {
        bool found = false;
        for (size_t k = 0; o->variants[i] && k < gm_suite_len && !found; k++)
            found = S_variant_matches(o->variants[i], &gm_suite[k]);
        if (!found) {
            char *valid = S_variant_names();
            gm_status st = gm_fail(err, GM_ERR_VALUE,
                                   "--variants: unknown variant '%s'; valid names "
                                   "(EXPERIMENT/VARIANT, or VARIANT alone for every "
                                   "experiment that has it): %s",
                                   o->variants[i] ? o->variants[i] : "(null)", valid);
            free(valid);
            return st;
        }
    }
    for (size_t k = 0; k < gm_suite_len; k++)
        if (gm_suite_selects_variant(o, &gm_suite[k]))
            return GM_OK;
    return gm_fail(err, GM_ERR_VALUE,
                   "the selection (--only, --skip, --variants) leaves no variant to run");
}

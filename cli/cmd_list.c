/* gpumem-report list — the experiments, their variants and parameters (from the
 * suite table), and the metrics the report knows (from the catalog). */
#include "../core/catalog.h"
#include "cli.h"
#include "options.h"

#include <stdio.h>
#include <string.h>

#include "../kernels/suite.h"

static void S_values(const long long *v)
{
    for (int i = 0; i < GM_MAX_VALUES && v[i] != GM_END; i++)
        printf("%s%lld", i ? "," : "", v[i]);
}

static void S_list_suite(bool quick)
{
    for (size_t e = 0; e < gm_experiments_len; e++) {
        const gm_experiment_def *x = gm_experiments[e];
        printf("%s — %s\n", x->id, x->title);
        for (size_t i = 0; i < gm_suite_len; i++) {
            const gm_variant *v = &gm_suite[i];
            if (v->experiment != x)
                continue;
            printf("    %-22s %s\n", v->name, v->layout);
            for (int p = 0; p < GM_MAX_PARAMS && v->params[p].name; p++) {
                const gm_sweep *s = &v->params[p];
                const long long *vals = gm_sweep_values(s, quick);
                printf("    %-22s   %s = ", "", s->name);
                S_values(vals);
                putchar('\n');
            }
        }
    }
}

int gm_cmd_list(int argc, char **argv)
{
    gm_list_args a = {false, false};
    int p = gm_opt_parse(&gm_opts_list, 0, argc, argv, &a, NULL);
    if (p)
        return p == 1 ? GM_EXIT_OK : GM_EXIT_USAGE;
    bool metrics = a.metrics, quick = a.quick;
    if (metrics) {
        for (size_t i = 0; i < gm_catalog_len; i++) {
            const gm_metric_info *m = &gm_catalog[i];
            printf("%c %-72s %-15s %s\n", m->is_default ? '*' : ' ', m->name,
                   m->unit[0] ? m->unit : "-", m->label);
        }
        return GM_EXIT_OK;
    }
    S_list_suite(quick);
    return GM_EXIT_OK;
}

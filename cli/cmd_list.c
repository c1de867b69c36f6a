/* gpumem-report list — the experiments, their variants and parameters (from the
 * suite table), and the metrics the report knows (from the catalog). */
#include "../core/catalog.h"
#include "cli.h"

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

static void S_usage(FILE *f)
{
    fputs("usage: gpumem-report list [--quick] [--metrics]\n"
          "  (default)   experiments, their variants (layouts) and swept parameters\n"
          "  --quick     show the parameter values of the --quick size set\n"
          "  --metrics   the metrics the report knows: exact Nsight Compute names, units;\n"
          "              '*' marks the default set. Any other metric name that exists on\n"
          "              the device can be given to --metrics when collecting.\n",
          f);
}

int gm_cmd_list(int argc, char **argv)
{
    bool metrics = false, quick = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--metrics") == 0)
            metrics = true;
        else if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            S_usage(stdout);
            return GM_EXIT_OK;
        } else {
            gm_cli_error("list: unknown option '%s'", argv[i]);
            S_usage(stderr);
            return GM_EXIT_USAGE;
        }
    }
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

/* test_cli_opt.c — the option tables (cli/opt.h, cli/options.c) in process:
 * one parser for every command, and --help from the same rows. */
#include "../cli/options.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Parse args (NULL-terminated, after the command's name) by t; stderr and
 * stdout of the parse in *said (caller frees). */
static int S_parse(const gm_opt_table *t, unsigned variant, char **args, void *opts, int *stop,
                   char **said)
{
    char *argv[32] = {"cmd"};
    int argc = 1;
    while (args[argc - 1])
        argv[argc] = args[argc - 1], argc++;
    char *dir = gmt_tmpdir("opt");
    char *path = gmt_join(dir, "said");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert_geq(fd, 0);
    fflush(stdout);
    fflush(stderr);
    int so = dup(STDOUT_FILENO), se = dup(STDERR_FILENO);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    close(fd);
    int rc = gm_opt_parse(t, variant, argc, argv, opts, stop);
    fflush(stdout);
    fflush(stderr);
    dup2(so, STDOUT_FILENO);
    dup2(se, STDERR_FILENO);
    close(so);
    close(se);
    *said = gmt_text(path);
    gmt_rmrf(dir);
    free(path);
    free(dir);
    return rc;
}

Test(cli_opt, values_lists_and_both_spellings)
{
    gm_suite_args o;
    memset(&o, 0, sizeof o);
    char *said = NULL;
    char *args[] = {"--json=run.json", "--only", "a,b", "--only", " c ", "--repeat", "7",
                    "--quick", "--device", "0,1", "--gnuplot-timeout", "0", NULL};
    cr_assert_eq(S_parse(&gm_opts_main, GM_OPT_MAIN, args, &o, NULL, &said), 0, "%s", said);
    cr_assert_str_eq(o.json, "run.json");
    cr_assert_eq(o.n_only, 3);
    cr_assert_str_eq(o.only[2], "c");
    cr_assert_eq(o.repeat, 7);
    cr_assert(o.quick);
    cr_assert_str_eq(o.devices, "0,1");
    cr_assert_eq(o.gnuplot_timeout, -1.0, "0 seconds is no limit");
    gm_opt_free(&gm_opts_main, &o);
    cr_assert_null(o.only);
    free(said);
}

Test(cli_opt, errors_name_the_option_and_the_value)
{
    gm_suite_args o;
    char *said = NULL;
    struct {
        const gm_opt_table *t;
        unsigned variant;
        char *args[4];
        const char *want;
    } cases[] = {
        {&gm_opts_collect, GM_OPT_COLLECT, {"--repeat", "0", NULL},
         "--repeat: '0' is not an integer in [1, 100000]"},
        {&gm_opts_collect, GM_OPT_COLLECT, {"--out", "r.html", NULL},
         "unknown option or argument '--out' (see --help)"},
        {&gm_opts_main, GM_OPT_MAIN, {"--format", "pdf", NULL},
         "--format: 'pdf' is not md or html"},
        {&gm_opts_main, GM_OPT_MAIN, {"--json", NULL}, "--json needs a value"},
        {&gm_opts_main, GM_OPT_MAIN, {"--quick=1", NULL}, "unknown option or argument '--quick=1'"},
        {&gm_opts_render, 0, {"--format", "pdf", NULL},
         "render: --format: 'pdf' is not md, html, csv or gfm"},
        {&gm_opts_render, 0, {"-o", NULL},
         "render: -o needs a value (see gpumem-report render --help)"},
        {&gm_opts_diff, 0, {"--alpha", "1", NULL},
         "diff: --alpha: '1' is not a number between 0 and 1"},
        {&gm_opts_diff, 0, {"a", "b", "c"},
         "diff: unexpected argument 'c': give BASE.json and HEAD.json"},
        {&gm_opts_list, 0, {"--all", NULL},
         "list: unknown option '--all'\nusage: gpumem-report list"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *args[5] = {cases[i].args[0], cases[i].args[1], cases[i].args[2], NULL, NULL};
        gm_diff_args d;
        memset(&o, 0, sizeof o);
        memset(&d, 0, sizeof d);
        void *target = cases[i].t == &gm_opts_diff ? (void *)&d : (void *)&o;
        gm_render_args r;
        gm_list_args l;
        memset(&r, 0, sizeof r);
        memset(&l, 0, sizeof l);
        if (cases[i].t == &gm_opts_render)
            target = &r;
        if (cases[i].t == &gm_opts_list)
            target = &l;
        cr_assert_eq(S_parse(cases[i].t, cases[i].variant, args, target, NULL, &said), 2,
                     "case %zu: %s", i, said);
        gmt_assert_has(said, cases[i].want);
        free(said);
        if (cases[i].t == &gm_opts_main || cases[i].t == &gm_opts_collect)
            gm_opt_free(cases[i].t, &o);
    }
}

Test(cli_opt, render_aliases_and_inputs)
{
    gm_render_args r;
    memset(&r, 0, sizeof r);
    char *said = NULL;
    char *args[] = {"a.json", "--format", "github", "-", "-o", "x.md", NULL};
    cr_assert_eq(S_parse(&gm_opts_render, 0, args, &r, NULL, &said), 0, "%s", said);
    cr_assert_str_eq(r.format, "gfm");
    cr_assert_eq(r.n_inputs, 2);
    cr_assert_str_eq(r.inputs[1], "-");
    cr_assert_str_eq(r.out, "x.md");
    free(said);
}

/* A program's options end at "--", which is no option's value. */
Test(cli_opt, a_program_run_stops_at_the_double_dash)
{
    gm_app_args a;
    memset(&a, 0, sizeof a);
    char *said = NULL;
    int stop = -1;
    char *args[] = {"--launches", "each", "--kernel=k.*", "--", "./app", "--json", NULL};
    cr_assert_eq(S_parse(&gm_opts_program, GM_OPT_MAIN, args, &a, &stop, &said), 0, "%s",
                 said);
    cr_assert_eq(stop, 4);
    cr_assert_str_eq(a.launches, "each");
    cr_assert_str_eq(a.kernel, "k.*");
    cr_assert_null(a.json);
    free(said);
    char *bad[] = {"--json", "--", "./app", NULL};
    memset(&a, 0, sizeof a);
    cr_assert_eq(S_parse(&gm_opts_program, GM_OPT_MAIN, bad, &a, &stop, &said), 2);
    gmt_assert_has(said, "--json needs a value");
    free(said);
}

/* diff's --threshold and --pair gather; "--" makes the rest files. */
Test(cli_opt, diff_gathers_thresholds_and_pairs)
{
    gm_diff_args d;
    memset(&d, 0, sizeof d);
    char *said = NULL;
    char *args[] = {"--threshold", "time=10%", "--threshold=dram__bytes_read.sum=5%",
                    "--pair", "a=b", "--", "-base.json", "head.json", NULL};
    cr_assert_eq(S_parse(&gm_opts_diff, 0, args, &d, NULL, &said), 0, "%s", said);
    cr_assert_eq(d.thresholds.n, 2);
    cr_assert_eq(d.pairs.n, 1);
    cr_assert_eq(d.n_files, 2);
    cr_assert_str_eq(d.files[0], "-base.json");
    gm_threshold_list_free(&d.thresholds);
    gm_pair_list_free(&d.pairs);
    free(said);
}

/* --help: the rows in order, each label padded to the table's column, a
 * label too wide on a line of its own, notes two spaces in. */
Test(cli_opt, help_lays_out_the_rows)
{
    char *said = NULL;
    gm_suite_args o;
    memset(&o, 0, sizeof o);
    char *args[] = {"--help", NULL};
    cr_assert_eq(S_parse(&gm_opts_collect, GM_OPT_COLLECT, args, &o, NULL, &said), 1);
    gmt_assert_has(said, "usage: gpumem-report collect [OPTIONS] --json run.json\n");
    gmt_assert_has(said, "  --json FILE         the results file (required)\n");
    gmt_assert_has(said, "  --profile-max-ms MS do not profile");
    gmt_assert_has(said, "\n  (--json and --out take %h host");
    gmt_assert_lacks(said, "--out FILE");
    gmt_assert_lacks(said, "--baseline");
    free(said);
    memset(&o, 0, sizeof o);
    cr_assert_eq(S_parse(&gm_opts_main, GM_OPT_MAIN, args, &o, NULL, &said), 1);
    gmt_assert_has(said, "  --gnuplot-timeout SECONDS\n                      longest one");
    gmt_assert_has(said, "  --baseline BASE.json\n");
    free(said);
}

/* gpumem-report — turn GPU memory behaviour into a report people can read.
 *
 *   gpumem-report --out report.html        collect the suite on the GPU and render
 *   gpumem-report --out r.html -- PROGRAM  profile a program's kernels and render
 *   gpumem-report collect --json run.json  collect only
 *   gpumem-report render run.json --out report.html|report.md
 *   gpumem-report render A.json B.json... --out compare.html   devices side by side
 *   gpumem-report merge rank0.json rank1.json... --json all.json
 *   gpumem-report diff BASE.json HEAD.json [--out diff.md]
 *   gpumem-report history add run.json | report --out trend.html | gate head.json
 *   gpumem-report list
 *
 * Only this file and the gm_cmd_* functions print or choose exit codes.
 */
#include "cli.h"
#include "../core/output.h"
#include "../core/results.h"
#include "gm_version.h"
#ifdef GM_HAVE_CUDA
#include "../collectors/gmc_cupti_load.h"
#endif

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* $GPUMEM_REPORT_MAX_INPUT: the largest results file read, in bytes, with an
 * optional K, M or G (binary) suffix. */
static bool S_size_limit_from_env(void)
{
    const char *v = getenv("GPUMEM_REPORT_MAX_INPUT");
    if (!v || !*v)
        return true;
    char *end = NULL;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    unsigned shift = 0;
    if (end && (*end == 'K' || *end == 'k'))
        shift = 10, end++;
    else if (end && (*end == 'M' || *end == 'm'))
        shift = 20, end++;
    else if (end && (*end == 'G' || *end == 'g'))
        shift = 30, end++;
    if (end == v || *end || errno == ERANGE || v[0] == '-' || n == 0 || n > (1ULL << 50) >> shift) {
        gm_cli_error("GPUMEM_REPORT_MAX_INPUT: '%s' is not a size in bytes (a positive number, "
                     "optionally with K, M or G)", v);
        return false;
    }
    gm_results_set_size_limit((size_t)(n << shift));
    return true;
}

/* SIGINT, SIGTERM, SIGHUP: kill the gnuplot child, remove the temporary files
 * and directories in flight (output.h's cleanup table), then die of the same
 * signal, so the caller sees how we ended. */
static void S_on_signal(int sig)
{
    gm_cleanup_run();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void S_install_cleanup(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = S_on_signal;
    sigemptyset(&sa.sa_mask);
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old;
        /* a signal ignored by whoever started us (nohup) stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

/* Collecting (collect, the main job, -- PROGRAM, the per-line pass's child)
 * needs CUPTI, which is opened only then (collectors/gmc_cupti_load.h):
 * without it, say so before anything starts, and what still works.  Asking
 * for help (before any "--") needs nothing. */
static bool S_cupti_or_say(int argc, char **argv)
{
#ifdef GM_HAVE_CUDA
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    char why[768] = "";
    if (gmc_cupti_load(why, sizeof why))
        return true;
    const char *so = gmc_cupti_soname();
    const char *v = strrchr(so, '.');
    gm_cli_error("collecting needs the CUDA %s toolkit's CUPTI (%s): not found; render, diff, "
                 "merge and history work without it\n"
                 "  (%s; install the toolkit, or point LD_LIBRARY_PATH or CUDA_HOME at it)",
                 v ? v + 1 : "13", so, why);
    return false;
#else
    (void)argc, (void)argv;
    return true;   /* the commands say themselves that this build cannot collect */
#endif
}

static void S_usage(FILE *f)
{
    fputs("usage: gpumem-report [OPTIONS] --out report.html|report.md   collect on the GPU and render\n"
          "       gpumem-report [--out FILE] [OPTIONS] -- PROGRAM [ARGS]  profile a program\n"
          "       gpumem-report collect [OPTIONS] --json run.json      collect only\n"
          "       gpumem-report render RUN.json --out FILE [--format md|html|csv|gfm]\n"
          "       gpumem-report render A.json B.json... --out FILE   compare devices\n"
          "       gpumem-report merge RANK.json... --json ALL.json [--sum]\n"
          "       gpumem-report diff BASE.json HEAD.json [--out FILE]\n"
          "       gpumem-report history add|report|gate|export ... (runs over commits, SQLite)\n"
          "       gpumem-report list [--quick] [--metrics]\n"
          "       gpumem-report --version | --help\n"
          "\n"
          "Each subcommand takes --help for its options.\n",
          f);
}

int main(int argc, char **argv)
{
    S_install_cleanup();
    if (!S_size_limit_from_env())
        return GM_EXIT_USAGE;
    if (argc >= 2) {
        const char *cmd = argv[1];
        if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
            S_usage(stdout);
            return GM_EXIT_OK;
        }
        if (strcmp(cmd, "collect") == 0)
            return S_cupti_or_say(argc - 1, argv + 1) ? gm_cmd_collect(argc - 1, argv + 1)
                                                      : GM_EXIT_USAGE;
        if (strcmp(cmd, "sass-child") == 0)
            return S_cupti_or_say(argc - 1, argv + 1) ? gm_cmd_sass_child(argc - 1, argv + 1)
                                                      : GM_EXIT_USAGE;
        if (strcmp(cmd, "trace-child") == 0)
            return gm_cmd_trace_child(argc - 1, argv + 1);
        if (strcmp(cmd, "trace-replay") == 0)
            return gm_cmd_trace_replay(argc - 1, argv + 1);
        if (strcmp(cmd, "list") == 0)
            return gm_cmd_list(argc - 1, argv + 1);
        if (strcmp(cmd, "diff") == 0) return gm_cmd_diff(argc - 1, argv + 1);
        if (strcmp(cmd, "history") == 0) return gm_cmd_history(argc - 1, argv + 1);
        if (strcmp(cmd, "render") == 0) return gm_cmd_render(argc - 1, argv + 1);
        if (strcmp(cmd, "merge") == 0) return gm_cmd_merge(argc - 1, argv + 1);
        if (strcmp(cmd, "--version") == 0) {
            /* The commit the binary was built from, as its results files record it. */
            printf("gpumem-report %s (results schema %d; commit %s%s)\n", GM_TOOL_VERSION,
                   GM_SCHEMA_VERSION, GM_GIT_COMMIT[0] ? GM_GIT_COMMIT : "unknown",
                   GM_GIT_DIRTY == 1 ? ", dirty" : "");
            return GM_EXIT_OK;
        }
    }
    /* No subcommand: the main job (collect + render), e.g. --out report.html */
    if (argc >= 2 && argv[1][0] == '-') {
        if (!S_cupti_or_say(argc, argv))
            return GM_EXIT_USAGE;
        return gm_cli_has_program(argc, argv) ? gm_cmd_app(argc, argv, true)
                                              : gm_cmd_run(argc, argv);
    }
    if (argc >= 2)
        fprintf(stderr, "gpumem-report: unknown command '%s'\n", argv[1]);
    S_usage(stderr);
    return GM_EXIT_USAGE;
}

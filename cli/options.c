/* options.c — the options of every subcommand, one table each (opt.h).
 *
 * A row is the option's name, the kind of value it takes and its range, the
 * member it fills, its --help line and its default as the docs give it.
 * --help prints the rows in table order; docs/gpumem-report.1 and README.md
 * hold the same rows (tests/test_cli_docs.c). */
#include "options.h"

#include "cli.h"
#include "../collectors/inject.h"

#include <stdlib.h>
#include <string.h>

#ifndef GM_DATADIR
#define GM_DATADIR "/usr/local/share/gpumem-report"
#endif

/* ---- shared rows ----------------------------------------------------------------- */

/* The report's options: render, the main job, a program's main job.  T: the
 * options struct; ONLY: the variants that have them. */
#define GM_OPTS_REPORT(T, ONLY)                                                              \
    {.kind = GM_OPT_STR, .name = "--template", .at = offsetof(T, template_path),           \
     .label = "--template FILE", .only = ONLY, .deflt = "the installed `report.html`",     \
     .help = "HTML template (default: $GM_TEMPLATE_DIR/report.html, else\n"                 \
             "templates/report.html beside the build directory, else\n" GM_DATADIR          \
             "/templates/report.html)"},                                                    \
    {.kind = GM_OPT_STR, .name = "--gnuplot", .at = offsetof(T, gnuplot),                  \
     .label = "--gnuplot PATH", .only = ONLY, .deflt = "`gnuplot` on `PATH`",               \
     .help = "the gnuplot program that draws the charts (default: gnuplot\n"                \
             "from PATH; Debian/Ubuntu: apt-get install gnuplot-nox)"},                     \
    {.kind = GM_OPT_SECONDS, .name = "--gnuplot-timeout", .at = offsetof(T, gnuplot_timeout), \
     .label = "--gnuplot-timeout SECONDS", .only = ONLY, .deflt = "60",                     \
     .help = "longest one gnuplot run may take; past it gnuplot is killed\n"                \
             "and the render stops, writing nothing (default: 60; 0: no\n"                  \
             "limit)"},                                                                     \
    {.kind = GM_OPT_FLAG, .name = "--timestamp", .at = offsetof(T, timestamp),             \
     .only = ONLY, .deflt = "off",                                                          \
     .help = "show when the results were taken (default: not shown, so\n"                   \
             "the same results give the same bytes)"}

/* --baseline: render and the suite's main job (a program's report has none). */
#define GM_OPT_BASELINE(T, ONLY)                                                             \
    {.kind = GM_OPT_STR, .name = "--baseline", .at = offsetof(T, baseline),                \
     .label = "--baseline BASE.json", .only = ONLY, .deflt = "none",                        \
     .help = "add a section \"Changes since <BASE's commit>\": these results\n"            \
             "against BASE run by run, as `gpumem-report diff BASE.json\n"                  \
             "RUN.json` judges them (default: no such section)"}

/* The collection's options: the suite and a program. */
#define GM_OPT_JSON_MAIN(T)                                                                  \
    {.kind = GM_OPT_STR, .name = "--json", .at = offsetof(T, json), .label = "--json FILE", \
     .only = GM_OPT_MAIN, .deflt = "the report's name with `.json`",                        \
     .help = "the results file (default: the report's name with .json)"}
#define GM_OPT_JSON_COLLECT(T)                                                               \
    {.kind = GM_OPT_STR, .name = "--json", .at = offsetof(T, json), .label = "--json FILE", \
     .only = GM_OPT_COLLECT, .deflt = "— (required)", .help = "the results file (required)"}
#define GM_OPT_FORMAT_MAIN(T)                                                                \
    {.kind = GM_OPT_CHOICE, .name = "--format", .choices = "md|html",                      \
     .at = offsetof(T, format), .label = "--format md|html", .only = GM_OPT_MAIN,           \
     .deflt = "from `--out`", .help = "override the format the extension implies"}
#define GM_OPT_METRICS(T)                                                                    \
    {.kind = GM_OPT_STR, .name = "--metrics", .at = offsetof(T, metrics),                  \
     .label = "--metrics LIST", .deflt = "the report's set",                                \
     .help = "ncu-style comma-separated metric names\n"                                     \
             "(default: the report's set, `gpumem-report list --metrics`)"}
#define GM_OPT_QUIET(T)                                                                      \
    {.kind = GM_OPT_FLAG, .name = "--quiet", .at = offsetof(T, quiet),                     \
     .deflt = "progress on stderr", .help = "no progress on stderr"}
/* --json and --out are patterns (core/pathpat.h): a note under the options of
 * --help (the man page says it in full). */
#define GM_OPT_PATTERNS_NOTE                                                                 \
    {.kind = GM_OPT_TEXT, .only = GM_OPT_HIDDEN_DOCS,                                       \
     .help = "(--json and --out take %h host, %d device, %r rank, %l local rank, %p pid,\n" \
             "%% patterns; man gpumem-report says where the ranks come from)"}

/* ---- the suite: the main job and collect ----------------------------------------- */

/* --device N, or --device all|N,N (one process per GPU, cmd_collect.c). */
static bool S_device(const char *pre, const char *opt, const char *v, void *opts, size_t at)
{
    (void)pre, (void)at;
    gm_suite_args *o = opts;
    if (strcmp(v, "all") == 0 || strchr(v, ',')) {
        o->devices = v;
        return true;
    }
    o->devices = NULL;
    return gm_cli_int(opt, v, 0, 1023, &o->device);
}

static const gm_opt S_suite[] = {
    {.kind = GM_OPT_STR, .name = "--out", .at = offsetof(gm_suite_args, out),
     .label = "--out FILE", .only = GM_OPT_MAIN, .deflt = "— (required)",
     .help = "the report; .html (one self-contained page) or .md"},
    GM_OPT_JSON_MAIN(gm_suite_args),
    GM_OPT_JSON_COLLECT(gm_suite_args),
    GM_OPT_FORMAT_MAIN(gm_suite_args),
    {.kind = GM_OPT_LIST, .name = "--only", .at = offsetof(gm_suite_args, only),
     .at_n = offsetof(gm_suite_args, n_only), .label = "--only EXP[,EXP]", .deflt = "all",
     .help = "run only these experiments (see `gpumem-report list`)"},
    {.kind = GM_OPT_LIST, .name = "--skip", .at = offsetof(gm_suite_args, skip),
     .at_n = offsetof(gm_suite_args, n_skip), .label = "--skip EXP[,EXP]", .deflt = "none",
     .help = "leave these experiments out"},
    {.kind = GM_OPT_LIST, .name = "--variant", .at = offsetof(gm_suite_args, variants),
     .at_n = offsetof(gm_suite_args, n_variants), .label = "--variant V[,V]", .deflt = "all",
     .help = "only these variants: NAME or EXP/NAME"},
    {.kind = GM_OPT_FLAG, .name = "--quick", .at = offsetof(gm_suite_args, quick),
     .deflt = "off", .help = "small sizes, for a smoke run (default: full sizes)"},
    GM_OPT_METRICS(gm_suite_args),
    {.kind = GM_OPT_INT, .name = "--repeat", .min = 1, .max = 100000,
     .at = offsetof(gm_suite_args, repeat), .label = "--repeat N", .deflt = "20",
     .help = "timed repetitions per variant (default 20)"},
    {.kind = GM_OPT_INT, .name = "--warmup", .min = 0, .max = 10000,
     .at = offsetof(gm_suite_args, warmup), .label = "--warmup N", .deflt = "3",
     .help = "untimed launches before timing (default 3); repetitions\n"
             "under 2 ms are then released together from behind a gate\n"
             "kernel, so no sample holds the host's time to submit one"},
    {.kind = GM_OPT_CALL, .name = "--device", .call = S_device, .label = "--device N",
     .deflt = "0", .help = "CUDA device ordinal (default 0)"},
    {.kind = GM_OPT_TEXT, .label = "--device all|N,N", .deflt = "—",
     .help = "every GPU (or these), each collected by its own process at\n"
             "the same time, one results file each (%d in --json names\n"
             "the device; without it, -gpuN goes before the extension\n"
             "when there are several); the main job then renders the\n"
             "devices side by side. A GPU that fails does not stop the others"},
    GM_OPT_PATTERNS_NOTE,
    {.kind = GM_OPT_FLAG, .name = "--no-cache-flush", .at = offsetof(gm_suite_args, no_cache_flush),
     .deflt = "flush",
     .help = "do not flush L2 before profiled and timed launches\n"
             "(default: flush, as ncu --cache-control all)"},
    {.kind = GM_OPT_FLAG, .name = "--no-profile", .at = offsetof(gm_suite_args, no_profile),
     .deflt = "profile", .help = "validate and time only; no counters"},
    {.kind = GM_OPT_INT, .name = "--profile-max-ms", .min = 0, .max = 1000000,
     .at = offsetof(gm_suite_args, profile_max_ms), .label = "--profile-max-ms MS",
     .deflt = "20",
     .help = "do not profile a case whose launch takes longer than MS\n"
             "(default 20; 0: profile everything). Each profiler pass\n"
             "replays the launch, and one pass instruments it"},
    {.kind = GM_OPT_FLAG, .name = "--no-source-lines",
     .at = offsetof(gm_suite_args, no_source_lines), .deflt = "per-line pass on",
     .help = "skip the per-source-line pass (by default one case of each\n"
             "variant runs once more, traced, in processes of their own:\n"
             "sectors and shared wavefronts per line of its source and\n"
             "per array)"},
    {.kind = GM_OPT_CHOICE, .name = "--source-lines", .choices = "trace|sass",
     .at = offsetof(gm_suite_args, source_lines), .label = "--source-lines trace|sass",
     .deflt = "trace",
     .help = "how: trace (default: the Compute Sanitizer traces the\n"
             "variants in GPUMEM_REPORT_JOBS processes at once, default 4,\n"
             "each with whole experiments, and adds the per-array table; a\n"
             "variant whose traced global instructions fall short of its\n"
             "counters is counted again by sass; sass where the Compute\n"
             "Sanitizer is missing) or sass: CUPTI SASS metrics, a process\n"
             "per variant, GPUMEM_REPORT_JOBS at once, default 4 (on the\n"
             "H100 the suite's pass took 5.6 s by trace, 10.4 s by sass)"},
    GM_OPT_QUIET(gm_suite_args),
    GM_OPTS_REPORT(gm_suite_args, GM_OPT_MAIN),
    GM_OPT_BASELINE(gm_suite_args, GM_OPT_MAIN),
    {.kind = GM_OPT_TEXT, .label = "--help", .help = "this text", .only = GM_OPT_HIDDEN_DOCS},
    {.kind = GM_OPT_END}};

#define S_SUITE_TAIL                                                                         \
    "\nExit status: 0 done; 1 a variant failed validation (the report says which) or\n"     \
    "the run broke; 2 cannot run here (bad arguments, no GPU, counters not permitted).\n"

const gm_opt_table gm_opts_main = {
    .name = "the main job",
    .head = "usage: gpumem-report [OPTIONS] --out report.html|report.md\n"
            "Runs every experiment's variants on the GPU: validates each against its CPU\n"
            "reference, times it, measures its memory counters, writes the results file\n"
            "and renders the report.\n\n",
    .rows = S_suite, .column = 22, .tail = S_SUITE_TAIL,
    .unknown_pre = "unknown option or argument ", .unknown_post = " (see --help)"};

const gm_opt_table gm_opts_collect = {
    .name = "collect",
    .head = "usage: gpumem-report collect [OPTIONS] --json run.json\n"
            "Runs the suite on the GPU and writes the results file; no report.\n\n",
    .rows = S_suite, .column = 22, .tail = S_SUITE_TAIL,
    .unknown_pre = "unknown option or argument ", .unknown_post = " (see --help)"};

/* ---- a program: gpumem-report [OPTIONS] -- PROGRAM ARGS ------------------------- */

static const gm_opt S_program[] = {
    {.kind = GM_OPT_STR, .name = "--out", .at = offsetof(gm_app_args, out),
     .label = "--out FILE", .only = GM_OPT_MAIN, .deflt = "report.html",
     .help = "the report; .html or .md (default report.html)"},
    GM_OPT_JSON_MAIN(gm_app_args),
    GM_OPT_JSON_COLLECT(gm_app_args),
    GM_OPT_FORMAT_MAIN(gm_app_args),
    {.kind = GM_OPT_STR, .name = "--kernel", .at = offsetof(gm_app_args, kernel),
     .label = "--kernel REGEX", .deflt = "every kernel",
     .help = "profile only kernels whose demangled name matches this POSIX\n"
             "extended regex (like ncu --kernel-name regex:...)"},
    {.kind = GM_OPT_INT, .name = "--launch-skip", .min = 0, .max = 1000000000LL,
     .at = offsetof(gm_app_args, launch_skip), .label = "--launch-skip N", .deflt = "none",
     .help = "skip the first N matching launches"},
    {.kind = GM_OPT_INT, .name = "--launch-count", .min = 1, .max = GMI_MAX_COUNT,
     .at = offsetof(gm_app_args, launch_count), .label = "--launch-count N",
     .deflt = "every one, up to 200",
     .help = "profile N matching launches (default: every one, up to 200)"},
    {.kind = GM_OPT_CHOICE, .name = "--launches", .choices = "grouped|each",
     .at = offsetof(gm_app_args, launches), .label = "--launches grouped|each",
     .deflt = "grouped",
     .help = "grouped (default): launches of one kernel with one NVTX range\n"
             "and launch configuration are one run, counts summed;\n"
             "each: one run per launch"},
    GM_OPT_METRICS(gm_app_args),
    {.kind = GM_OPT_STR, .name = "--no-replay", .at = offsetof(gm_app_args, no_replay),
     .label = "--no-replay REGEX", .deflt = "the built-in collectives",
     .help = "never replay kernels whose demangled name matches this POSIX\n"
             "extended regex: they run once and are timed (besides the\n"
             "built-in collectives: NCCL, NVSHMEM, PyTorch symmetric memory)"},
    {.kind = GM_OPT_FLAG, .name = "--no-cache-flush", .at = offsetof(gm_app_args, no_cache_flush),
     .deflt = "flush", .help = "do not flush L2 before each profiled pass"},
    {.kind = GM_OPT_FLAG, .name = "--no-source-lines",
     .at = offsetof(gm_app_args, no_source_lines), .deflt = "per-line pass on",
     .help = "skip the per-source-line pass (by default the first launch\n"
             "of each kernel, kept by the counted run with the memory its\n"
             "arguments point into, is made again in a process of its own\n"
             "and traced through the Compute Sanitizer: sectors and\n"
             "wavefronts per line, and per array; needs nvcc -lineinfo for\n"
             "lines)"},
    {.kind = GM_OPT_CHOICE, .name = "--source-lines", .choices = "trace|sass",
     .at = offsetof(gm_app_args, source_lines), .label = "--source-lines trace|sass",
     .deflt = "trace",
     .help = "how: trace (default: the kept launches made again, traced; a\n"
             "kernel whose launch could not be kept or made again is traced\n"
             "in one more run of the program; where the toolkit's Compute\n"
             "Sanitizer is missing, sass instead) or sass: CUPTI SASS\n"
             "metrics, the program run once more per kernel (no per-array\n"
             "table)"},
    GM_OPT_QUIET(gm_app_args),
    GM_OPT_PATTERNS_NOTE,
    GM_OPTS_REPORT(gm_app_args, GM_OPT_MAIN),
    {.kind = GM_OPT_TEXT, .label = "--help", .help = "this text", .only = GM_OPT_HIDDEN_DOCS},
    {.kind = GM_OPT_END}};

#define S_PROGRAM_TAIL                                                                       \
    "\nProfiled launches are replayed in batches, once per profiler pass, from device\n"    \
    "memory saved before the batch, and the memory the program left is restored after,\n"  \
    "so the program computes what it computes without the tool; it runs slower.  Exit\n"   \
    "status: the program's when it is not 0; else 0 done, 1 nothing could be profiled,\n"  \
    "2 cannot run here (no such program, no GPU, counters not permitted).\n"
#define S_PROGRAM_UNKNOWN                                                                    \
    " before -- (see --help); the suite's options (--only, --quick, ...) do not apply to a " \
    "program"

const gm_opt_table gm_opts_program = {
    .name = "a program",
    .head = "usage: gpumem-report [--out report.html|report.md] [OPTIONS] -- PROGRAM [ARGS...]\n"
            "Runs PROGRAM, unchanged, and measures the memory counters of its kernel launches\n"
            "(a CUDA injection library the driver loads); writes the results file and the\n"
            "report.  The program's output and exit status are its own.\n\n",
    .rows = S_program, .column = 22, .tail = S_PROGRAM_TAIL, .dashdash = GM_OPT_DD_STOP,
    .unknown_post = S_PROGRAM_UNKNOWN};

const gm_opt_table gm_opts_program_collect = {
    .name = "collect -- PROGRAM",
    .head = "usage: gpumem-report collect --json run.json [OPTIONS] -- PROGRAM [ARGS...]\n"
            "Runs PROGRAM, unchanged, measures its kernel launches, writes the results file.\n\n",
    .rows = S_program, .column = 22, .tail = S_PROGRAM_TAIL, .dashdash = GM_OPT_DD_STOP,
    .unknown_post = S_PROGRAM_UNKNOWN};

/* ---- render ---------------------------------------------------------------------- */

static bool S_render_input(void *opts, const char *arg)
{
    gm_render_args *o = opts;
    if (o->n_inputs == GM_COMPARE_MAX) {
        gm_cli_error("render: at most %d results files in one comparison", GM_COMPARE_MAX);
        return false;
    }
    o->inputs[o->n_inputs++] = arg;
    return true;
}

static const char *const S_render_aliases[] = {"markdown", "md", "github", "gfm", NULL};

static const gm_opt S_render[] = {
    {.kind = GM_OPT_STR, .name = "--out", .alias = "-o", .at = offsetof(gm_render_args, out),
     .label = "-o, --out FILE", .deflt = "— (required)",
     .help = "the report; its extension (.md, .html or .csv) picks the\n"
             "format; - is standard output (Markdown unless --format).\n"
             "Never an input file (refused, exit 2)"},
    {.kind = GM_OPT_CHOICE, .name = "--format", .choices = "md|html|csv|gfm",
     .aliases = S_render_aliases, .at = offsetof(gm_render_args, format),
     .label = "--format md|html|csv|gfm", .deflt = "from `--out`",
     .help = "the format, whatever the extension (default: from FILE;\n"
             "csv: one line per run and metric; gfm: one Markdown file\n"
             "to paste into a GitHub issue or comment, charts left out,\n"
             "a line says how many)"},
    {.kind = GM_OPT_STR, .name = "--only", .at = offsetof(gm_render_args, only),
     .label = "--only EXP[,EXP]", .deflt = "all",
     .help = "these experiments alone (ids as `gpumem-report list` gives\n"
             "them), for a writeup (default: all)"},
    GM_OPTS_REPORT(gm_render_args, 0),
    GM_OPT_BASELINE(gm_render_args, 0),
    {.kind = GM_OPT_TEXT, .label = "-h, --help", .help = "this text", .only = GM_OPT_HIDDEN_DOCS},
    {.kind = GM_OPT_END}};

const gm_opt_table gm_opts_render = {
    .name = "render",
    .head = "usage: gpumem-report render RUN.json --out FILE [options]\n"
            "       gpumem-report render A.json B.json [C.json...] --out FILE [options]\n"
            "\n"
            "Writes the report of a results file: Markdown (GitHub-flavoured, charts as SVG\n"
            "files in FILE's stem + .charts/) or one self-contained HTML page.  Given\n"
            "several results files (one per device), writes one report that compares the\n"
            "devices side by side: runs paired as `gpumem-report diff` pairs them, each\n"
            "device against its own measured ceiling, cases run on some devices only listed.\n"
            "\n",
    .rows = S_render, .column = 21, .value_pre = "render: ", .missing_pre = "render: ",
    .missing_post = " (see gpumem-report render --help)",
    .unknown_pre = "render: unknown option ",
    .unknown_post = " (see gpumem-report render --help)", .operand = S_render_input};

/* ---- diff and history's gate --------------------------------------------------------- */

static bool S_threshold(const char *pre, const char *opt, const char *v, void *opts, size_t at)
{
    (void)opt;
    gm_threshold_list *l = (gm_threshold_list *)((char *)opts + at);
    gm_diff_override o;
    gm_error err = {GM_OK, ""};
    if (gm_threshold_parse(v, &o.metric, &o.thr, &err) != GM_OK) {
        gm_cli_error("%s%s", pre, err.message);
        return false;
    }
    l->v = gm_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
    l->v[l->n++] = o;
    return true;
}

static bool S_pair(const char *pre, const char *opt, const char *v, void *opts, size_t at)
{
    (void)opt;
    gm_pair_list *l = (gm_pair_list *)((char *)opts + at);
    gm_diff_pair p;
    gm_error err = {GM_OK, ""};
    if (gm_diff_pair_parse(v, &p, &err) != GM_OK) {
        gm_cli_error("%s%s", pre, err.message);
        return false;
    }
    l->v = gm_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
    l->v[l->n++] = p;
    return true;
}

void gm_threshold_list_free(gm_threshold_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].metric);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

void gm_pair_list_free(gm_pair_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].from);
        free(l->v[i].to);
    }
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

static bool S_diff_file(void *opts, const char *arg)
{
    gm_diff_args *a = opts;
    if (a->n_files == 2) {
        gm_cli_error("diff: unexpected argument '%s': give BASE.json and HEAD.json", arg);
        return false;
    }
    a->files[a->n_files++] = arg;
    return true;
}

static const gm_opt S_diff[] = {
    {.kind = GM_OPT_STR, .name = "--out", .at = offsetof(gm_diff_args, out),
     .label = "--out FILE", .deflt = "Markdown on standard output",
     .help = "write the diff to FILE: Markdown, HTML when FILE ends in\n"
             ".html or .htm, CSV when it ends in .csv; - is standard\n"
             "output (default: Markdown on standard output); never an\n"
             "input file (refused, exit 2)"},
    {.kind = GM_OPT_CHOICE, .name = "--format", .choices = "md|html|csv",
     .at = offsetof(gm_diff_args, format), .label = "--format md|html|csv",
     .deflt = "from `--out`",
     .help = "format of --out, overriding its extension (default: from it)"},
    {.kind = GM_OPT_STR, .name = "--json", .at = offsetof(gm_diff_args, json),
     .label = "--json FILE", .deflt = "none",
     .help = "also write the diff as JSON for machines (default: none)"},
    {.kind = GM_OPT_CALL, .name = "--threshold", .call = S_threshold,
     .at = offsetof(gm_diff_args, thresholds), .label = "--threshold M=V[,F]",
     .deflt = "per metric (below)",
     .help = "threshold for metric M: V is 5% (relative), 0.5 (absolute,\n"
             "in M's unit; percentage points for % metrics) or exact;\n"
             "F, a floor the change must also exceed: 2MiB, 1e10 (M's\n"
             "unit) or 0.05/inst (per shared instruction; shared\n"
             "conflicts and wavefronts). M is an ncu metric name, a\n"
             "catalog label or 'time'. Repeatable; the last one for a\n"
             "metric wins. A rate given a threshold gates; time given\n"
             "one is judged by it alone (no floor between sessions).\n"
             "(default: time 5%, and p < alpha, or with too few\n"
             "samples beyond their spread (one a side: 10%), and when\n"
             "no count moved beyond 10 us too; sectors, requests\n"
             "and instructions exact; shared conflicts and wavefronts\n"
             "1%,0.05/inst; DRAM bytes 2%,2MiB; rates, shown and not\n"
             "gated: DRAM bytes/s 10%,1e10, L2 hit 10 (points), other\n"
             "percentages 5 (points), duration 20%; metrics not in the\n"
             "catalog 5%)"},
    {.kind = GM_OPT_FRACTION, .name = "--alpha", .at = offsetof(gm_diff_args, alpha),
     .label = "--alpha P", .deflt = "0.05",
     .help = "significance level of the timing noise test, 0 < P < 1\n"
             "(default: 0.05)"},
    {.kind = GM_OPT_FLAG, .name = "--all", .at = offsetof(gm_diff_args, all),
     .deflt = "changed layouts only",
     .help = "every layout and row, unchanged ones too, nothing folded\n"
             "and no size cap (default: one verdict per layout that\n"
             "changed, regressions first, its rows folded under it in\n"
             "<details>, time first; the Markdown cut at 60,000\n"
             "characters to fit a pull-request comment)"},
    {.kind = GM_OPT_FLAG, .name = "--only-changed", .at = offsetof(gm_diff_args, only_changed),
     .deflt = "on", .help = "the default; kept for scripts that give it"},
    {.kind = GM_OPT_INT, .name = "--max-rows", .min = 0, .max = 1000000000,
     .at = offsetof(gm_diff_args, max_rows), .label = "--max-rows N", .deflt = "0",
     .help = "show at most N rows in the table; 0 for all (default: 0)"},
    {.kind = GM_OPT_CALL, .name = "--pair", .call = S_pair, .at = offsetof(gm_diff_args, pairs),
     .label = "--pair OLD=NEW", .deflt = "none",
     .help = "pair base runs named OLD with head runs named NEW (a renamed\n"
             "kernel or variant): EXPERIMENT/VARIANT or VARIANT, one '*'\n"
             "in OLD matches any text and stands for it in NEW\n"
             "(transpose/tile_*=transpose/smem_*); a program's kernel\n"
             "also by its name without a launch configuration, so one\n"
             "rule covers them all. Repeatable; the first rule that\n"
             "matches a run renames it (default: none)"},
    {.kind = GM_OPT_FLAG, .name = "--allow-missing", .at = offsetof(gm_diff_args, allow_missing),
     .deflt = "off",
     .help = "runs of BASE missing from HEAD do not fail the gate\n"
             "(default: they do: a change that drops runs must say so)"},
    {.kind = GM_OPT_FLAG, .name = "--force", .at = offsetof(gm_diff_args, force),
     .deflt = "off",
     .help = "judge rows even when the files were collected differently\n"
             "(GPU, driver, CUPTI, metrics, L2 flush, clocks, size set,\n"
             "schema) (default: such rows are marked incomparable, exit 2)"},
    {.kind = GM_OPT_FLAG, .name = "--warn-only", .at = offsetof(gm_diff_args, warn_only),
     .deflt = "off", .help = "exit 0 even when something regressed (default: exit 1)"},
    {.kind = GM_OPT_TEXT, .label = "-h, --help", .help = "this help", .only = GM_OPT_HIDDEN_DOCS},
    {.kind = GM_OPT_END}};

const gm_opt_table gm_opts_diff = {
    .name = "diff",
    .head = "usage: gpumem-report diff BASE.json HEAD.json [OPTIONS]\n"
            "\n"
            "Compare HEAD's results against BASE's: runs are paired by experiment, variant and\n"
            "parameters (a program's kernels by kernel and NVTX range, whatever their launch\n"
            "configuration, shown beside the row); every metric both have and the timing are\n"
            "compared, and each layout (a program's kernel) gets one verdict. Counts gate,\n"
            "rates explain: the gate judges sectors, requests, shared conflicts and wavefronts,\n"
            "instructions, DRAM bytes and time; hit rates, % of peak, bytes/second,\n"
            "efficiency, sectors/request, occupancy and the profiler's duration are shown\n"
            "beside them and gate only when --threshold names them. Without --out the\n"
            "Markdown goes to standard output.\n"
            "\n"
            "options:\n",
    .rows = S_diff, .column = 23,
    .tail = "\n"
            "exit status: 0 no regression, 1 a regression, a failed validation in HEAD, runs\n"
            "missing from HEAD (without --allow-missing) or nothing paired,\n"
            "2 bad input or option, or files collected differently without --force.\n"
            "See docs/diff.md, and docs/ci.md for a CI recipe.\n",
    .dashdash = GM_OPT_DD_OPERANDS, .value_pre = "diff: ", .missing_pre = "diff: ",
    .missing_post = " (see gpumem-report diff --help)", .unknown_pre = "diff: unknown option ",
    .unknown_post = " (see gpumem-report diff --help)", .operand = S_diff_file};

/* ---- history --------------------------------------------------------------------------- */

static bool S_history_file(void *opts, const char *arg)
{
    gm_history_args *a = opts;
    a->files[a->n_files++] = arg;
    return true;
}

static const gm_opt S_history[] = {
    {.kind = GM_OPT_STR, .name = "--db", .at = offsetof(gm_history_args, db),
     .label = "--db FILE", .deflt = "`./gpumem-history.sqlite`",
     .help = "the database (default: ./gpumem-history.sqlite, created by add)"},
    {.kind = GM_OPT_STR, .name = "--commit-time", .at = offsetof(gm_history_args, commit_time),
     .label = "--commit-time T", .deflt = "when the run was taken",
     .help = "add: the commit's time, seconds since the epoch or ISO 8601\n"
             "UTC (git show -s --format=%ct); it orders the history\n"
             "(default: when the run was taken)"},
    {.kind = GM_OPT_STR, .name = "--out", .at = offsetof(gm_history_args, out),
     .label = "--out FILE", .deflt = "standard output",
     .help = "report: HTML (.html, gnuplot charts) or Markdown (any other\n"
             "name); gate: the Markdown verdict; export: the CSV; - is\n"
             "standard output (default: standard output, Markdown)"},
    {.kind = GM_OPT_STR, .name = "--only", .at = offsetof(gm_history_args, only),
     .label = "--only EXP[,EXP]", .deflt = "all",
     .help = "only these experiments (default: all)"},
    {.kind = GM_OPT_STR, .name = "--device", .at = offsetof(gm_history_args, device),
     .label = "--device NAME", .deflt = "all",
     .help = "only this device, as the results name it (default: all)"},
    {.kind = GM_OPT_INT, .name = "--last", .min = 1, .max = 1000000000,
     .at = offsetof(gm_history_args, last), .label = "--last N", .deflt = "all",
     .help = "the last N results of each device (default: all)"},
    {.kind = GM_OPT_INT, .name = "--md-commits", .min = 0, .max = 1000000000,
     .at = offsetof(gm_history_args, md_commits), .label = "--md-commits N", .deflt = "20",
     .help = "report, Markdown: the per-commit table of each experiment\n"
             "lists the last N commits, 0 for all (default: 20)"},
    {.kind = GM_OPT_FLAG, .name = "--all", .at = offsetof(gm_history_args, all),
     .deflt = "off",
     .help = "report, Markdown: every commit and no size cap (default:\n"
             "cut at 60,000 characters); gate: every row, as for diff"},
    {.kind = GM_OPT_TEXT, .label = "--threshold M=V[,F], --alpha P, --max-rows N, --json FILE",
     .help = "gate: as for gpumem-report diff (default: diff's)"},
    {.kind = GM_OPT_CALL, .name = "--threshold", .call = S_threshold,
     .at = offsetof(gm_history_args, thresholds)},
    {.kind = GM_OPT_FRACTION, .name = "--alpha", .at = offsetof(gm_history_args, alpha)},
    {.kind = GM_OPT_INT, .name = "--max-rows", .min = 0, .max = 1000000000,
     .at = offsetof(gm_history_args, max_rows)},
    {.kind = GM_OPT_STR, .name = "--json", .at = offsetof(gm_history_args, json)},
    {.kind = GM_OPT_CHOICE, .name = "--format", .choices = "csv",
     .at = offsetof(gm_history_args, format), .label = "--format csv", .deflt = "—",
     .help = "export: the format (csv, the only one)"},
    {.kind = GM_OPT_TEXT, .label = "--allow-missing, --pair OLD=NEW, --warn-only, --force",
     .help = "gate: as for gpumem-report diff"},
    {.kind = GM_OPT_FLAG, .name = "--allow-missing",
     .at = offsetof(gm_history_args, allow_missing)},
    {.kind = GM_OPT_CALL, .name = "--pair", .call = S_pair, .at = offsetof(gm_history_args, pairs)},
    {.kind = GM_OPT_FLAG, .name = "--warn-only", .at = offsetof(gm_history_args, warn_only)},
    {.kind = GM_OPT_FLAG, .name = "--force", .at = offsetof(gm_history_args, force)},
    {.kind = GM_OPT_TEXT, .label = "-h, --help", .help = "this help", .only = GM_OPT_HIDDEN_DOCS},
    {.kind = GM_OPT_END}};

const gm_opt_table gm_opts_history = {
    .name = "history",
    .head = "usage: gpumem-report history add RUN.json... [--db FILE] [--commit-time T]\n"
            "       gpumem-report history report [--out FILE] [--only EXP[,EXP]] [--device NAME]\n"
            "                                    [--last N] [--md-commits N] [--all] [--db FILE]\n"
            "       gpumem-report history gate HEAD.json [--out FILE] [--threshold M=V[,F]]\n"
            "                                    [--alpha P] [--allow-missing] [--pair OLD=NEW]\n"
            "                                    [--all] [--max-rows N] [--json FILE] [--db FILE]\n"
            "       gpumem-report history export --format csv [--out FILE] [--only EXP]\n"
            "                                    [--device NAME] [--db FILE]\n"
            "\n"
            "Keep every run in an SQLite database and follow the counters over commits.\n"
            "\n",
    .rows = S_history, .column = 21,
    .tail = "\n"
            "exit status: 0 done (gate: no regression), 1 the gate found a regression, 2 bad\n"
            "option, input or database. See docs/history.md.\n",
    .value_pre = "history: ", .missing_pre = "history: ",
    .missing_post = " (see gpumem-report history --help)",
    .unknown_post = " (see gpumem-report history --help)", .operand = S_history_file};

/* ---- merge, list, sass-child ------------------------------------------------------------ */

static bool S_merge_file(void *opts, const char *arg)
{
    gm_merge_args *a = opts;
    a->files[a->n_files++] = arg;
    return true;
}

static const gm_opt S_merge[] = {
    {.kind = GM_OPT_STR, .name = "--json", .at = offsetof(gm_merge_args, json),
     .label = "--json FILE", .deflt = "— (required)",
     .help = "the merged results file (required; - for standard output;\n"
             "%h %r %l %p expand as in collect)"},
    {.kind = GM_OPT_FLAG, .name = "--sum", .at = offsetof(gm_merge_args, sum),
     .deflt = "every rank's runs",
     .help = "one run per kernel, the ranks added up (GPU time over the job,\n"
             "counts summed exactly, ratios averaged, the least and most busy\n"
             "rank noted; a count past 2^53 is refused); default: every\n"
             "rank's runs, with a parameter rank"},
    {.kind = GM_OPT_TEXT, .label = "-h, --help", .help = "this text", .only = GM_OPT_HIDDEN_DOCS},
    {.kind = GM_OPT_END}};

const gm_opt_table gm_opts_merge = {
    .name = "merge",
    .head = "usage: gpumem-report merge RANK.json... --json ALL.json [--sum]\n"
            "\n"
            "Gathers the results files of the ranks of one job (e.g. written by\n"
            "`srun gpumem-report --json app-%r.json -- ./app`) into one file whose report\n"
            "shows the ranks side by side.  Each file's rank is the one it recorded\n"
            "(RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK,\n"
            "MV2_COMM_WORLD_RANK or PALS_RANKID), 0 to 2^20 - 1; a file without one takes\n"
            "its place on the command line.  A file given twice (by any name, or a copy of\n"
            "it) is refused.\n"
            "\n",
    .rows = S_merge, .column = 16, .value_pre = "merge: ", .missing_pre = "merge: ",
    .unknown_pre = "merge: unknown option ", .unknown_post = " (see gpumem-report merge --help)",
    .operand = S_merge_file};

static const gm_opt S_list[] = {
    {.kind = GM_OPT_TEXT, .label = "(default)",
     .help = "experiments, their variants (layouts) and swept parameters"},
    {.kind = GM_OPT_FLAG, .name = "--quick", .at = offsetof(gm_list_args, quick),
     .deflt = "the full size set", .help = "show the parameter values of the --quick size set"},
    {.kind = GM_OPT_FLAG, .name = "--metrics", .at = offsetof(gm_list_args, metrics),
     .deflt = "the experiments",
     .help = "the metrics the report knows: exact Nsight Compute names, units;\n"
             "'*' marks the default set. Any other metric name that exists on\n"
             "the device can be given to --metrics when collecting."},
    {.kind = GM_OPT_END}};

const gm_opt_table gm_opts_list = {
    .name = "list", .head = "usage: gpumem-report list [--quick] [--metrics]\n", .rows = S_list,
    .column = 14, .value_pre = "list: ", .unknown_pre = "list: unknown option ",
    .usage_on_error = true};

static bool S_sass_operand(void *opts, const char *arg)
{
    gm_sass_args *a = opts;
    a->operands[a->n_operands++] = (char *)arg;
    return true;
}

static const gm_opt S_sass[] = {
    {.kind = GM_OPT_INT, .name = "--device", .min = 0, .max = 1023,
     .at = offsetof(gm_sass_args, device)},
    {.kind = GM_OPT_FLAG, .name = "--quick", .at = offsetof(gm_sass_args, quick)},
    {.kind = GM_OPT_FLAG, .name = "--plain", .at = offsetof(gm_sass_args, plain)},
    {.kind = GM_OPT_END}};

const gm_opt_table gm_opts_sass = {
    .name = "sass-child",
    .head = "usage: gpumem-report sass-child [--device N] [--quick] [--plain] EXP VARIANT "
            "NAME=VALUE...\n",
    .rows = S_sass, .missing_pre = "sass-child: ", .unknown_pre = "sass-child: unknown option ",
    .operand = S_sass_operand};

/* ---- the docs ------------------------------------------------------------------------------ */

const gm_opt_doc gm_opt_docs[] = {
    {"collect and the main job", &gm_opts_main, 0},
    {"a program", &gm_opts_program, 0},
    {"render", &gm_opts_render, 0},
    {"diff", &gm_opts_diff, 0},
    {"history", &gm_opts_history, 0},
    {"merge", &gm_opts_merge, 0},
    {"list", &gm_opts_list, 0},
};
const size_t gm_opt_docs_len = sizeof gm_opt_docs / sizeof *gm_opt_docs;

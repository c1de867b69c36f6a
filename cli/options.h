/* options.h — each subcommand's options struct and its table (options.c).
 *
 * A table's rows name members of its struct (opt.h); the commands read the
 * struct after gm_opt_parse.  Members that the report's options and the
 * collection's options fill have the same names in every struct that takes
 * them (template_path, gnuplot, gnuplot_timeout, timestamp, baseline; json,
 * metrics, quiet), so each shared row is written once (options.c). */
#ifndef GM_CLI_OPTIONS_H
#define GM_CLI_OPTIONS_H

#include "opt.h"
#include "../reports/compare.h"
#include "../reports/diff.h"

#include <stdbool.h>
#include <stddef.h>

/* gpumem-report [OPTIONS] --out FILE (main job) and collect --json FILE. */
typedef struct {
    bool main_job;            /* collect + render */
    const char *out;          /* report path (main job) */
    const char *json;         /* results path */
    const char *format;       /* md | html | NULL */
    char **only, **skip, **variants;
    size_t n_only, n_skip, n_variants;
    bool quick;
    const char *metrics;      /* ncu-style list, NULL: the catalog's default set */
    long long repeat, warmup, device, profile_max_ms;
    const char *devices;      /* --device all | N,N,...: one process per GPU (NULL: one device) */
    bool no_cache_flush;
    bool no_profile;
    bool no_source_lines;     /* --no-source-lines: skip the per-line pass */
    const char *source_lines; /* --source-lines trace|sass (NULL: trace) */
    bool quiet;
    bool timestamp;
    const char *template_path;
    const char *gnuplot;
    double gnuplot_timeout;   /* --gnuplot-timeout; 0: default, < 0: none */
    const char *baseline;     /* --baseline BASE.json (main job) */
} gm_suite_args;

/* gpumem-report [OPTIONS] -- PROGRAM ARGS and collect --json FILE -- PROGRAM. */
typedef struct {
    bool main_job;
    const char *out, *json, *format, *metrics, *kernel, *template_path, *gnuplot;
    const char *no_replay;    /* --no-replay REGEX */
    const char *launches;     /* --launches grouped|each */
    double gnuplot_timeout;   /* --gnuplot-timeout; 0: default, < 0: none */
    long long launch_skip, launch_count;
    bool each, no_cache_flush, quiet, timestamp, debug;
    bool no_source_lines;     /* --no-source-lines (cmd_trace.c, cmd_sass.c do the pass) */
    const char *source_lines; /* --source-lines trace|sass (NULL: trace) */
    char **prog_argv;         /* PROGRAM ARGS..., NULL-terminated (points into argv) */
} gm_app_args;

/* gpumem-report render RUN.json... --out FILE */
typedef struct {
    const char *out, *format, *only, *template_path, *gnuplot, *baseline;
    double gnuplot_timeout;
    bool timestamp;
    const char *inputs[GM_COMPARE_MAX];
    size_t n_inputs;
} gm_render_args;

/* --threshold and --pair, gathered (diff, history gate). */
typedef struct {
    gm_diff_override *v;
    size_t n;
} gm_threshold_list;
typedef struct {
    gm_diff_pair *v;
    size_t n;
} gm_pair_list;

/* gpumem-report diff BASE.json HEAD.json */
typedef struct {
    const char *files[2];
    size_t n_files;
    const char *out;
    const char *format;
    const char *json;
    gm_threshold_list thresholds;
    gm_pair_list pairs;
    double alpha;
    long long max_rows;
    bool only_changed, force, warn_only, all, allow_missing;
} gm_diff_args;

/* gpumem-report history add|report|gate|export */
typedef struct {
    const char *sub;
    const char **files;
    size_t n_files;
    const char *db, *out, *only, *device, *format, *commit_time, *json;
    long long last, md_commits, max_rows;
    bool allow_missing, warn_only, force, all, md_commits_set;
    gm_threshold_list thresholds;
    double alpha;
    gm_pair_list pairs;
} gm_history_args;

/* gpumem-report merge RANK.json... --json ALL.json */
typedef struct {
    const char *json;
    bool sum;
    const char **files;
    size_t n_files;
} gm_merge_args;

/* gpumem-report list */
typedef struct {
    bool metrics, quick;
} gm_list_args;

/* gpumem-report sass-child [--device N] [--quick] [--plain] EXP VARIANT NAME=VALUE... */
typedef struct {
    long long device;
    bool quick, plain;
    char **operands;          /* into argv */
    size_t n_operands;
} gm_sass_args;

extern const gm_opt_table gm_opts_main;     /* the main job (variant GM_OPT_MAIN) */
extern const gm_opt_table gm_opts_collect;  /* collect (variant GM_OPT_COLLECT), same rows */
extern const gm_opt_table gm_opts_program;  /* -- PROGRAM, main job */
extern const gm_opt_table gm_opts_program_collect;
extern const gm_opt_table gm_opts_render;
extern const gm_opt_table gm_opts_diff;
extern const gm_opt_table gm_opts_history;
extern const gm_opt_table gm_opts_merge;
extern const gm_opt_table gm_opts_list;
extern const gm_opt_table gm_opts_sass;

/* Every table the docs list, with the variant they list (0: all rows) and
 * the name of its block in docs/gpumem-report.1 and README.md. */
typedef struct {
    const char *block;
    const gm_opt_table *table;
    unsigned variant;
} gm_opt_doc;
extern const gm_opt_doc gm_opt_docs[];
extern const size_t gm_opt_docs_len;

/* Free what a diff's or a history's --threshold and --pair gathered. */
void gm_threshold_list_free(gm_threshold_list *l);
void gm_pair_list_free(gm_pair_list *l);

#endif

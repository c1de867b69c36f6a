/* cmd_history.c — `gpumem-report history add|report|gate|export`: the command
 * line around reports/history.h (history_store.c, history_series.c, history_page.c).
 *   add RUN.json... [--db FILE] [--commit-time T]  store runs (a no-op for one stored already)
 *   report --out trend.html|trend.md|-              trends and steps over commits
 *   gate HEAD.json [--out FILE]                     HEAD against the history: exit 1 on regression
 *   export --format csv [--out FILE|-]              every stored value
 * Exit: 0 done (gate: pass), 1 the gate failed, 2 bad option, input or database.
 */
#include "cli.h"
#include "options.h"
#include "../core/buf.h"
#include "../reports/history.h"
#include "../core/output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#define S_DEFAULT_DB "gpumem-history.sqlite"

/* The options (cli/options.h; their table, gm_opts_history, is in cli/options.c). */
typedef gm_history_args S_args;

static void S_args_free(S_args *a)
{
    free(a->files);
    gm_threshold_list_free(&a->thresholds);
    gm_pair_list_free(&a->pairs);
}

/* 0 parsed, 1 help printed, 2 error printed. */
static int S_parse(int argc, char **argv, S_args *a)
{
    if (argc < 2) {
        gm_cli_error("history: give add, report, gate or export (see gpumem-report history "
                     "--help)");
        return 2;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        gm_opt_help(stdout, &gm_opts_history, 0);
        return 1;
    }
    a->sub = argv[1];
    if (strcmp(a->sub, "add") && strcmp(a->sub, "report") && strcmp(a->sub, "gate") &&
        strcmp(a->sub, "export")) {
        gm_cli_error("history: unknown subcommand '%s': give add, report, gate or export",
                     a->sub);
        return 2;
    }
    a->files = calloc((size_t)argc, sizeof *a->files);
    if (!a->files) {
        gm_cli_error("out of memory");
        return 2;
    }
    /* the table, its unknown option named with the subcommand */
    gm_buf unknown = GM_BUF_INIT;
    gm_buf_printf(&unknown, "history %s: unknown option ", a->sub);
    gm_opt_table t = gm_opts_history;
    t.unknown_pre = unknown.data;
    a->md_commits = -1;
    int p = gm_opt_parse(&t, 0, argc - 1, argv + 1, a, NULL);
    gm_buf_free(&unknown);
    if (p)
        return p;
    a->md_commits_set = a->md_commits >= 0;
    if (!a->md_commits_set)
        a->md_commits = 0;
    bool add = strcmp(a->sub, "add") == 0, gate = strcmp(a->sub, "gate") == 0;
    if (add && a->n_files == 0) {
        gm_cli_error("history add: give one or more results files");
        return 2;
    }
    if (gate && a->n_files != 1) {
        gm_cli_error("history gate: give one results file, HEAD.json");
        return 2;
    }
    if (!add && !gate && a->n_files) {
        gm_cli_error("history %s: unexpected argument '%s'", a->sub, a->files[0]);
        return 2;
    }
    if (a->commit_time && (!add || a->n_files != 1)) {
        gm_cli_error("history: --commit-time goes with add and one results file");
        return 2;
    }
    bool report = strcmp(a->sub, "report") == 0;
    if (!gate && (a->thresholds.n || a->alpha > 0 || a->max_rows || a->allow_missing ||
                  a->pairs.n || a->warn_only || a->force || a->json)) {
        gm_cli_error("history %s: --threshold, --alpha, --max-rows, --allow-missing, --pair, "
                     "--json, --warn-only and --force go with gate", a->sub);
        return 2;
    }
    if (a->json && (strcmp(a->json, "-") == 0 ? !a->out || strcmp(a->out, "-") == 0
                                             : a->out && strcmp(a->out, a->json) == 0)) {
        gm_cli_error("history gate: --json and --out name the same output '%s': give each its "
                     "own", a->json);
        return 2;
    }
    if (!report && a->md_commits_set) {
        gm_cli_error("history %s: --md-commits goes with report", a->sub);
        return 2;
    }
    if (a->all && !gate && !report) {
        gm_cli_error("history %s: --all goes with report and gate", a->sub);
        return 2;
    }
    if (strcmp(a->sub, "export") == 0 && !a->format) {
        gm_cli_error("history export: give --format csv");
        return 2;
    }
    return 0;
}

/* Seconds since the epoch, or ISO 8601 UTC "2026-11-22T07:25:00Z". */
static bool S_parse_time(const char *s, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*s && !*end && !errno && v >= 0) {
        *out = v;
        return true;
    }
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    int used = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec, &used) != 6 ||
        (s[used] && strcmp(s + used, "Z") != 0) || tm.tm_mon < 1 || tm.tm_mon > 12 ||
        tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
        return false;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    time_t t = timegm(&tm);
    if (t == (time_t)-1)
        return false;
    *out = (long long)t;
    return true;
}

/* Write text to path (NULL: standard output) by the output rule
 * (core/output.h): never over an input (the database, the head file). */
static int S_emit(const char *path, const char *text, const char *what,
                  const char *const *inputs, size_t n_inputs)
{
    gm_error err;
    if (gm_output_write(path ? path : "-", text, strlen(text), inputs, n_inputs, &err) !=
        GM_OK) {
        gm_cli_error("history: %s", err.message);
        return GM_EXIT_USAGE;
    }
    if (path && !gm_output_is_stream(path))
        fprintf(stderr, "gpumem-report history: %s -> %s\n", what, path);
    return GM_EXIT_OK;
}

static bool S_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int S_add(gm_history *h, const S_args *a)
{
    long long ct = -1;
    if (a->commit_time && !S_parse_time(a->commit_time, &ct)) {
        gm_cli_error("history add: --commit-time: '%s' is not seconds since the epoch or "
                     "YYYY-MM-DDTHH:MM:SSZ", a->commit_time);
        return GM_EXIT_USAGE;
    }
    int rc = GM_EXIT_OK;
    for (size_t i = 0; i < a->n_files; i++) {
        gm_error err;
        char *text = NULL;
        gm_results r;
        /* the input rule of every results file read (results.h): its size
         * limit, NUL and type checks */
        if (gm_results_read_file_text(a->files[i], &r, &text, &err) != GM_OK) {
            gm_cli_error("history add: %s", err.message);
            rc = GM_EXIT_USAGE;
            continue;
        }
        bool added = false;
        char wb[512], *commit = NULL;
        const char *warn = gm_history_commit_warning(&r, wb, sizeof wb);
        if (warn)
            fprintf(stderr, "gpumem-report history add: %s: warning: %s\n", a->files[i], warn);
        if (gm_history_add(h, &r, text, ct, a->files[i], &added, &err) != GM_OK ||
            gm_history_resolve_commit(h, r.commit, &commit, &err) != GM_OK) {
            gm_cli_error("history add: %s: %s", a->files[i], err.message);
            rc = GM_EXIT_USAGE;
        } else {
            /* the commit as stored: a short id as the full one it names */
            printf("gpumem-report history: %s: %s (%zu runs, commit %.12s%s, %s)\n", a->files[i],
                   added ? "added" : "already there, nothing added", r.n_runs, commit,
                   r.dirty == 1 ? " dirty" : "", r.device.name ? r.device.name : "unknown GPU");
        }
        free(commit);
        gm_results_free(&r);
        free(text);
    }
    return rc;
}

int gm_cmd_history(int argc, char **argv)
{
    S_args a;
    memset(&a, 0, sizeof a);
    int pr = S_parse(argc, argv, &a);
    if (pr != 0) {
        S_args_free(&a);
        return pr == 1 ? GM_EXIT_OK : GM_EXIT_USAGE;
    }
    const char *db = a.db ? a.db : S_DEFAULT_DB;
    gm_history *h = NULL;
    gm_error err;
    bool add = strcmp(a.sub, "add") == 0;
    if (gm_history_open(db, add, &h, &err) != GM_OK) {
        /* the hint only where it helps: no file there */
        struct stat sb;
        bool missing = !add && stat(db, &sb) != 0 && errno == ENOENT;
        gm_cli_error("history %s: %s%s", a.sub, err.message,
                     missing ? " (history add creates it)" : "");
        S_args_free(&a);
        return GM_EXIT_USAGE;
    }
    int rc = GM_EXIT_OK;
    gm_history_query q = {.only = a.only, .device = a.device, .last = (size_t)a.last,
                          .db_name = db, .all = a.all,
                          .md_commits = a.md_commits_set && a.md_commits == 0
                                            ? (size_t)-1
                                            : (size_t)a.md_commits};
    char *text = NULL;
    if (add) {
        rc = S_add(h, &a);
    } else if (strcmp(a.sub, "report") == 0) {
        bool html = a.out && (S_ends_with(a.out, ".html") || S_ends_with(a.out, ".htm"));
        gm_status s = html ? gm_history_report_html(h, &q, &text, &err)
                           : gm_history_report_md(h, &q, &text, &err);
        if (s != GM_OK) {
            gm_cli_error("history report: %s", err.message);
            rc = GM_EXIT_USAGE;
        } else {
            const char *in[] = {db};
            rc = S_emit(a.out, text, html ? "trend page" : "trend", in, 1);
        }
    } else if (strcmp(a.sub, "export") == 0) {
        if (gm_history_csv(h, &q, &text, &err) != GM_OK) {
            gm_cli_error("history export: %s", err.message);
            rc = GM_EXIT_USAGE;
        } else {
            const char *in[] = {db};
            rc = S_emit(a.out, text, "CSV", in, 1);
        }
    } else {
        gm_results head;
        if (gm_results_read_file(a.files[0], &head, &err) != GM_OK) {
            gm_cli_error("history gate: %s", err.message);
            rc = GM_EXIT_USAGE;
        } else {
            gm_diff_options o = {.force = a.force, .pairs = a.pairs.v, .n_pairs = a.pairs.n,
                                 .allow_missing = a.allow_missing, .overrides = a.thresholds.v,
                                 .n_overrides = a.thresholds.n, .alpha = a.alpha};
            gm_diff_render ro = {.only_changed = !a.all, .all = a.all,
                                 .max_rows = (size_t)a.max_rows};
            bool fail = true;
            char *json = NULL;
            if (gm_history_gate(h, &head, a.files[0], &o, &ro, a.warn_only, &text,
                                a.json ? &json : NULL, &fail, &err) != GM_OK) {
                gm_cli_error("history gate: %s", err.message);
                rc = GM_EXIT_USAGE;
            } else {
                const char *in[] = {db, a.files[0]};
                rc = S_emit(a.out, text, "gate", in, 2);
                if (rc == GM_EXIT_OK && json)
                    rc = S_emit(a.json, json, "gate JSON", in, 2);
                if (rc == GM_EXIT_OK && fail && !a.warn_only)
                    rc = GM_EXIT_FAIL;
                const char *nl = strstr(text, "\n");
                fprintf(stderr, "%.*s\n", nl ? (int)(nl - text) : (int)strlen(text), text);
            }
            free(json);
            gm_results_free(&head);
        }
    }
    free(text);
    gm_history_close(h);
    S_args_free(&a);
    return rc;
}

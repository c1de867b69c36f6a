/* cmd_history.c — `gpumem-report history add|report|gate|export`: the command
 * line around reports/history.h (history_store.c, history_series.c, history_page.c).
 *   add RUN.json... [--db FILE] [--commit-time T]  store runs (a no-op for one stored already)
 *   report --out trend.html|trend.md|-              trends and steps over commits
 *   gate HEAD.json [--out FILE]                     HEAD against the history: exit 1 on regression
 *   export --format csv [--out FILE|-]              every stored value
 * Exit: 0 done (gate: pass), 1 the gate failed, 2 bad option, input or database.
 */
#include "cli.h"
#include "../reports/history.h"
#include "../core/output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#define S_DEFAULT_DB "gpumem-history.sqlite"

static void S_help(FILE *f)
{
    fputs("usage: gpumem-report history add RUN.json... [--db FILE] [--commit-time T]\n"
          "       gpumem-report history report [--out FILE] [--only EXP[,EXP]] [--device NAME]\n"
          "                                    [--last N] [--md-commits N] [--all] [--db FILE]\n"
          "       gpumem-report history gate HEAD.json [--out FILE] [--threshold M=V[,F]]\n"
          "                                    [--alpha P] [--allow-missing] [--pair OLD=NEW]\n"
          "                                    [--all] [--max-rows N] [--json FILE] [--db FILE]\n"
          "       gpumem-report history export --format csv [--out FILE] [--only EXP]\n"
          "                                    [--device NAME] [--db FILE]\n"
          "\n"
          "Keep every run in an SQLite database and follow the counters over commits.\n"
          "\n"
          "  --db FILE          the database (default: ./" S_DEFAULT_DB ", created by add)\n"
          "  --commit-time T    add: the commit's time, seconds since the epoch or ISO 8601\n"
          "                     UTC (git show -s --format=%ct); it orders the history\n"
          "                     (default: when the run was taken)\n"
          "  --out FILE         report: HTML (.html, gnuplot charts) or Markdown (any other\n"
          "                     name); gate: the Markdown verdict; export: the CSV; - is\n"
          "                     standard output (default: standard output, Markdown)\n"
          "  --only EXP[,EXP]   only these experiments (default: all)\n"
          "  --device NAME      only this device, as the results name it (default: all)\n"
          "  --last N           the last N results of each device (default: all)\n"
          "  --md-commits N     report, Markdown: the per-commit table of each experiment\n"
          "                     lists the last N commits, 0 for all (default: 20)\n"
          "  --all              report, Markdown: every commit and no size cap (default:\n"
          "                     cut at 60,000 characters); gate: every row, as for diff\n"
          "  --threshold M=V[,F], --alpha P, --max-rows N, --json FILE\n"
          "                     gate: as for gpumem-report diff (default: diff's)\n"
          "  --format csv       export: the format (csv, the only one)\n"
          "  --allow-missing, --pair OLD=NEW, --warn-only, --force\n"
          "                     gate: as for gpumem-report diff\n"
          "  -h, --help         this help\n"
          "\n"
          "exit status: 0 done (gate: no regression), 1 the gate found a regression, 2 bad\n"
          "option, input or database. See docs/history.md.\n",
          f);
}

typedef struct {
    const char *sub;
    const char **files;
    size_t n_files;
    const char *db, *out, *only, *device, *format, *commit_time, *json;
    long long last, md_commits, max_rows;
    bool allow_missing, warn_only, force, all, md_commits_set;
    gm_diff_override *overrides;
    size_t n_overrides;
    double alpha;
    gm_diff_pair *pairs;
    size_t n_pairs;
} S_args;

static void S_args_free(S_args *a)
{
    free(a->files);
    for (size_t i = 0; i < a->n_overrides; i++)
        free(a->overrides[i].metric);
    free(a->overrides);
    for (size_t i = 0; i < a->n_pairs; i++) {
        free(a->pairs[i].from);
        free(a->pairs[i].to);
    }
    free(a->pairs);
}

static bool S_is(const char *arg, const char *opt)
{
    size_t n = strlen(opt);
    return strncmp(arg, opt, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

static const char *S_value(int argc, char **argv, int *i, const char *opt)
{
    size_t n = strlen(opt);
    const char *a = argv[*i];
    if (a[n] == '=')
        return a + n + 1;
    if (*i + 1 >= argc) {
        gm_cli_error("history: %s needs a value (see gpumem-report history --help)", opt);
        return NULL;
    }
    return argv[++*i];
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
        S_help(stdout);
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
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (arg[0] != '-' || strcmp(arg, "-") == 0) {
            a->files[a->n_files++] = arg;
        } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            S_help(stdout);
            return 1;
        } else if (S_is(arg, "--db")) {
            if (!(a->db = S_value(argc, argv, &i, "--db")))
                return 2;
        } else if (S_is(arg, "--out")) {
            if (!(a->out = S_value(argc, argv, &i, "--out")))
                return 2;
        } else if (S_is(arg, "--only")) {
            if (!(a->only = S_value(argc, argv, &i, "--only")))
                return 2;
        } else if (S_is(arg, "--device")) {
            if (!(a->device = S_value(argc, argv, &i, "--device")))
                return 2;
        } else if (S_is(arg, "--commit-time")) {
            if (!(a->commit_time = S_value(argc, argv, &i, "--commit-time")))
                return 2;
        } else if (S_is(arg, "--format")) {
            if (!(v = S_value(argc, argv, &i, "--format")))
                return 2;
            if (strcmp(v, "csv") != 0) {
                gm_cli_error("history: --format: '%s' is not csv", v);
                return 2;
            }
            a->format = v;
        } else if (S_is(arg, "--last")) {
            if (!(v = S_value(argc, argv, &i, "--last")) ||
                !gm_cli_int("history: --last", v, 1, 1000000000, &a->last))
                return 2;
        } else if (S_is(arg, "--json")) {
            if (!(a->json = S_value(argc, argv, &i, "--json")))
                return 2;
        } else if (S_is(arg, "--md-commits")) {
            if (!(v = S_value(argc, argv, &i, "--md-commits")) ||
                !gm_cli_int("history: --md-commits", v, 0, 1000000000, &a->md_commits))
                return 2;
            a->md_commits_set = true;
        } else if (S_is(arg, "--max-rows")) {
            if (!(v = S_value(argc, argv, &i, "--max-rows")) ||
                !gm_cli_int("history: --max-rows", v, 0, 1000000000, &a->max_rows))
                return 2;
        } else if (S_is(arg, "--threshold")) {
            if (!(v = S_value(argc, argv, &i, "--threshold")))
                return 2;
            gm_diff_override o;
            gm_error err;
            if (gm_threshold_parse(v, &o.metric, &o.thr, &err) != GM_OK) {
                gm_cli_error("history: %s", err.message);
                return 2;
            }
            gm_diff_override *no = realloc(a->overrides, (a->n_overrides + 1) * sizeof *no);
            if (!no) {
                free(o.metric);
                gm_cli_error("out of memory");
                return 2;
            }
            a->overrides = no;
            a->overrides[a->n_overrides++] = o;
        } else if (S_is(arg, "--alpha")) {
            if (!(v = S_value(argc, argv, &i, "--alpha")))
                return 2;
            char *end = NULL;
            errno = 0;
            double p = strtod(v, &end);
            if (!*v || *end || errno || !(p > 0.0 && p < 1.0)) {
                gm_cli_error("history: --alpha: '%s' is not a number between 0 and 1", v);
                return 2;
            }
            a->alpha = p;
        } else if (strcmp(arg, "--all") == 0) {
            a->all = true;
        } else if (S_is(arg, "--pair")) {
            if (!(v = S_value(argc, argv, &i, "--pair")))
                return 2;
            gm_diff_pair p;
            gm_error err;
            if (gm_diff_pair_parse(v, &p, &err) != GM_OK) {
                gm_cli_error("history: %s", err.message);
                return 2;
            }
            gm_diff_pair *np = realloc(a->pairs, (a->n_pairs + 1) * sizeof *a->pairs);
            if (!np) {
                free(p.from);
                free(p.to);
                gm_cli_error("out of memory");
                return 2;
            }
            a->pairs = np;
            a->pairs[a->n_pairs++] = p;
        } else if (strcmp(arg, "--allow-missing") == 0) {
            a->allow_missing = true;
        } else if (strcmp(arg, "--warn-only") == 0) {
            a->warn_only = true;
        } else if (strcmp(arg, "--force") == 0) {
            a->force = true;
        } else {
            gm_cli_error("history %s: unknown option '%s' (see gpumem-report history --help)",
                         a->sub, arg);
            return 2;
        }
    }
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
    if (!gate && (a->n_overrides || a->alpha > 0 || a->max_rows || a->allow_missing ||
                  a->n_pairs || a->warn_only || a->force || a->json)) {
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
            gm_diff_options o = {.force = a.force, .pairs = a.pairs, .n_pairs = a.n_pairs,
                                 .allow_missing = a.allow_missing, .overrides = a.overrides,
                                 .n_overrides = a.n_overrides, .alpha = a.alpha};
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

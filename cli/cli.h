/* cli.h — the command line: one function per subcommand, each returning the
 * process exit code (0 done, 1 a failure the output describes, 2 cannot run:
 * bad arguments, bad input, no GPU).  Only these functions print. */
#ifndef GM_CLI_H
#define GM_CLI_H

#include "../core/buf.h"
#include "../core/claim.h"
#include "../core/results.h"
#include "../reports/render.h"

#include <stdbool.h>

enum { GM_EXIT_OK = 0, GM_EXIT_FAIL = 1, GM_EXIT_USAGE = 2 };
/* `trace-replay`: a kept launch failed when made again (cmd_replay.c); the
 * caller starts another from the launch after it. */
enum { GM_EXIT_REPLAY_LAUNCH = 3 };

int gm_cmd_render(int argc, char **argv);   /* gpumem-report render RUN.json --out FILE */
int gm_cmd_diff(int argc, char **argv);     /* gpumem-report diff BASE.json HEAD.json */
int gm_cmd_history(int argc, char **argv);  /* gpumem-report history add|report|gate|export */
int gm_cmd_collect(int argc, char **argv);  /* gpumem-report collect --json run.json */
int gm_cmd_run(int argc, char **argv);      /* gpumem-report --out report.html (collect + render) */
int gm_cmd_list(int argc, char **argv);     /* gpumem-report list */
int gm_cmd_merge(int argc, char **argv);    /* gpumem-report merge RANK.json... --json ALL.json */
/* gpumem-report [OPTIONS] -- PROGRAM ARGS (main_job: collect + render) and
 * gpumem-report collect --json F -- PROGRAM ARGS: profile a program (cmd_app.c). */
int gm_cmd_app(int argc, char **argv, bool main_job);
/* argv (after the subcommand) has a "--" naming a program to profile. */
bool gm_cli_has_program(int argc, char **argv);

/* Parse a whole decimal integer in [min, max] given for option `opt`; on error
 * print "gpumem-report: OPT: 'VAL' is not an integer in [min, max]" and return false. */
bool gm_cli_int(const char *opt, const char *val, long long min, long long max, long long *out);

/* Absolute path of the running program (from /proc/self/exe), for finding
 * templates/ beside the build directory; NULL when unknown.  Caller frees. */
char *gm_cli_exe_path(void);

/* The results file that goes with report OUT when --json is not given: OUT
 * less its extension, plus ".json" ("r.html" -> "r.json"; a dot in a
 * directory name is not an extension).  Caller frees. */
char *gm_cli_json_beside(const char *out);

/* The report options of a run that renders what it collects (collect's main
 * job, a program run): ro->out_path = out; ro->format from `format` ("md" or
 * "html", already checked; NULL: from out's extension); the template found
 * now, when the format is HTML, from what ro already holds (template_path,
 * exe_path), into *template_path (the caller's to free) and
 * ro->template_path; and --json (json_path) must name another file than out.
 * False after printing why. */
bool gm_cli_report_opts(gm_render_opts *ro, const char *out, const char *format,
                        const char *json_path, char **template_path);

/* --out names an existing directory: print so ("CMD: --out DIR is a
 * directory: name a file"; cmd may be NULL) and return true, before the
 * format is guessed from a name that has no extension. */
bool gm_cli_out_is_dir(const char *cmd, const char *out);

/* An output path (--json, --out) with its patterns expanded (pathpat.h: %h
 * host, %d device, %r rank, %l local rank, %p pid, %%) for this process and
 * `device` (< 0: not known, %d refused).  NULL after printing why (naming
 * opt).  Caller frees. */
char *gm_cli_expand(const char *opt, const char *pattern, int device);

/* Claim an output path (opt's, patterns expanded) for this process before
 * anything runs (core/claim.h): false after printing why (another process
 * of the job writes it), and the caller exits 2.  Release with
 * gm_claim_release. */
bool gm_cli_claim(const char *opt, const char *path, gm_claim *c);

/* gpumem-report sass-child ...: one suite case under SASS metrics (cmd_sass.c). */
int gm_cmd_sass_child(int argc, char **argv);
/* The per-source-line pass over a collected suite run: one child process per
 * variant (the case gm_srclines_pick chooses; only != NULL: the runs it marks),
 * after everything else.  A child that fails leaves its run's source_lines with
 * status "failed" and a note; the pass itself never fails the collection. */
gm_status gm_source_lines_pass(gm_results *r, const bool *only, int device, bool quick,
                               bool progress, gm_error *err);

/* How per-source-line counts are taken (--source-lines, cmd_trace.c). */
typedef enum {
    GM_SL_METHOD_TRACE = 0,   /* the Compute Sanitizer tracer: one extra run for all kernels */
    GM_SL_METHOD_SASS         /* CUPTI's SASS metrics: one extra process per kernel */
} gm_sl_method;
/* "trace" or "sass"; false after printing why. */
bool gm_cli_source_lines_method(const char *val, gm_sl_method *out);

/* The counter run's kernel filter, which the traced run applies again. */
typedef struct {
    const char *kernel;        /* --kernel REGEX; NULL: every kernel */
    long long skip, count;     /* --launch-skip, --launch-count; -1: not given */
} gm_sl_filter;

/* The per-line pass of a collected suite run (after everything else):
 * TRACE: one `gpumem-report trace-child` for every case gm_srclines_pick
 * chooses, each traced run's global sectors checked against its counters, and
 * a run whose lines hold fewer (the tracer missed an instruction) counted again
 * by gm_source_lines_pass; where the tracer cannot run (its library missing or
 * unloadable, no records), and for SASS, gm_source_lines_pass.  The fallback
 * is said on stderr (progress) and kept in collection.source_lines_fallback;
 * the method in collection.source_lines_method.  Never fails the collection. */
void gm_source_lines_suite(gm_results *r, int device, bool quick, gm_sl_method method,
                           bool progress);
/* The same for a program: TRACE makes the launches the counted run kept in
 * capture_dir (collectors/replay_file.h) again under the tracer, in
 * `gpumem-report trace-replay` processes; the kernels it could not keep or
 * make again are traced by running the program once more with the injection
 * library lib in trace mode and the counter run's filter f.  The first
 * launch of each kernel gets the lines.  SASS, or the fallback:
 * gm_source_lines_program_pass. */
void gm_source_lines_program(gm_results *r, const char *prog, char *const *argv, const char *lib,
                             const char *capture_dir, const gm_sl_filter *f, gm_sl_method method,
                             bool progress);
/* gpumem-report trace-child ...: the suite's chosen cases traced (cmd_trace.c). */
int gm_cmd_trace_child(int argc, char **argv);
/* gpumem-report trace-replay ...: a program's kept launches traced (cmd_replay.c). */
int gm_cmd_trace_replay(int argc, char **argv);
/* The tracer's library (libgpumem-trace.so): $GPUMEM_REPORT_TRACE_LIB, else
 * beside `near` (the injection library or the binary), its ../lib/
 * gpumem-report, the install's; NULL with *why (caller frees) when absent. */
char *gm_cli_trace_lib(const char *near, char **why);

/* Run args[0] with args; stdout into *out (NULL: discarded), the end of its
 * stderr into errbuf (newlines as spaces); env: NAME=VALUE to set and NAME
 * (no '=') to unset, in the child; timeout_s > 0: killed after that long
 * (then 124).  The exit status, 128 + a signal, or -1 when it could not
 * start (errbuf says why). */
int gm_cli_spawn(char *const *args, gm_buf *out, char *errbuf, size_t errcap,
                 const char *const *env, double timeout_s);

/* The same for a program's kernels: the program runs once more per distinct
 * kernel of r (prog with argv, the injection library lib loaded in SASS mode,
 * its output discarded); the first run of each kernel gets the lines. */
void gm_source_lines_program_pass(gm_results *r, const char *prog, char *const *argv,
                                  const char *lib, bool progress);

/* --gnuplot-timeout SECONDS: a number >= 0 (strtod, the whole string); 0 means
 * no limit and is stored as -1 (gm_render_opts.gnuplot_timeout).  On a bad
 * value prints a message naming opt and the value and returns false. */
bool gm_cli_seconds(const char *opt, const char *val, double *out);
/* GPUMEM_REPORT_CHILD_TIMES, for the benchmark scripts (bench/suite-phases.sh):
 * whether a child says where its time went, and gm_cli_child_times says it:
 * "1" on stderr (which a parent keeps only the end of), an absolute path
 * appended to that file, one write a line, so that children running side by
 * side do not mix their lines. */
bool gm_cli_child_times_on(void);
void gm_cli_child_times(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "gpumem-report: " + message to stderr. */
void gm_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

/* proc.h — child processes, started, watched and ended one way.
 *
 * Every program the tool starts goes through here: gnuplot (reports/gnuplot.c),
 * a process per GPU (orchestrate/fanout.c), the profiled program
 * (orchestrate/program.c), and the children of the per-source-line pass
 * (cli/cmd_sass.c).  What a child gets:
 *
 *   - its program: argv[0] as a path, or a name looked up on this process's
 *     PATH (as execvp does); an exec that fails is reported by the start,
 *     with its errno (a close-on-exec pipe carries it back), never as an
 *     exit status to guess from;
 *   - its environment: this process's or a whole one given, then changed
 *     ("NAME=VALUE" sets, "NAME" unsets), built before the fork, so the child
 *     calls nothing that is not async-signal-safe between fork and exec;
 *   - its streams: inherited, /dev/null, a file, captured into a buffer
 *     (stderr: its last bytes only, when asked), or relayed to a FILE line
 *     by line, each line after a prefix;
 *   - a process group of its own, when asked (own_group): it and everything it
 *     starts are killed as a group (SIGKILL) at its time limit, when it has
 *     ended (what it left behind), and by the signal handler of the program
 *     (output.h's cleanup table holds it while it runs);
 *   - a death signal (PR_SET_PDEATHSIG, set in the child before exec, with a
 *     getppid() check for a parent that died before it was set): when this
 *     process dies in any way, SIGKILL included, the child gets that signal;
 *   - a time limit: past it the child (its group) is killed with SIGKILL and
 *     the result says timed_out.
 *
 * A child left in this process's group (own_group false) keeps the terminal:
 * the user's program reads it and gets ^C as it would without the tool.
 *
 * Nothing here prints or exits; errors are gm_error messages.
 */
#ifndef GM_PROC_H
#define GM_PROC_H

#include "buf.h"
#include "gm_error.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GM_PROC_INHERIT = 0, /* this process's stream */
    GM_PROC_NULL,        /* /dev/null */
    GM_PROC_FILE,        /* a file, created or truncated (mode 0600), relative to cwd */
    GM_PROC_CAPTURE,     /* into gm_proc_result.out or .err */
    GM_PROC_RELAY,       /* stdout only: line by line onto spec.relay, after relay_prefix */
    GM_PROC_MERGE        /* stderr only: where stdout goes */
} gm_proc_io;

typedef struct {
    char *const *argv;          /* NULL-terminated; argv[0] a path or a name on PATH */
    const char *path;           /* the program, when it is not argv[0] (argv[0] is then
                                   only what the child sees); NULL: argv[0] */
    char *const *envp;          /* the child's whole environment; NULL: this process's */
    const char *const *env;     /* then changed ("NAME=VALUE" sets, "NAME" unsets),
                                   NULL-terminated */
    const char *cwd;            /* the child's directory; NULL: this process's */
    bool null_stdin;            /* stdin from /dev/null (else inherited) */
    gm_proc_io out, err;
    const char *out_path;       /* GM_PROC_FILE of stdout */
    const char *err_path;       /* GM_PROC_FILE of stderr */
    size_t err_tail;            /* GM_PROC_CAPTURE of stderr: keep its last bytes only (0: all) */
    FILE *relay;                /* GM_PROC_RELAY: where the lines go (flushed after each read) */
    const char *relay_prefix;   /* before each relayed line */
    bool own_group;             /* a process group of its own, killed as one */
    int death_signal;           /* sent to the child when this process dies; 0: none */
    bool ignore_interrupts;     /* this process ignores SIGINT and SIGQUIT while the child
                                   runs (as system() does); the child gets them as before */
    double timeout_s;           /* > 0: killed after this long (SIGKILL, its group too) */
} gm_proc_spec;

typedef struct {
    int status;        /* the wait status */
    int code;          /* exit code, or 128 + the signal that ended it (as a shell gives) */
    int signal;        /* the signal that ended it; 0 when it exited */
    bool timed_out;    /* killed at its time limit */
    double seconds;    /* from the start to the end */
    gm_buf out, err;   /* GM_PROC_CAPTURE */
} gm_proc_result;

/* A running child.  Fields are private but for pid and res. */
typedef struct {
    pid_t pid;
    gm_proc_result res;
    int fd_out, fd_err;       /* pipes being read; -1 when closed */
    int slot;                 /* its cleanup slot (output.h); -1 when none */
    double t0, deadline;      /* deadline 0: none */
    bool reaped;
    gm_buf line;              /* a relayed line not yet complete */
    const gm_proc_spec *spec; /* borrowed until gm_proc_wait returns */
    struct sigaction old_int, old_quit;
} gm_proc;

/* Start a child.  On failure (the program not found or not executable, a
 * fork or pipe that failed, a file that could not be opened in the child) no
 * child is left, *start_errno (when non-NULL) holds the errno that says why
 * and err names the program.  spec must stay valid until gm_proc_wait. */
gm_status gm_proc_start(gm_proc *p, const gm_proc_spec *spec, int *start_errno, gm_error *err);

/* Wait for every child of ps[0..n): their output relayed or captured
 * meanwhile, each killed at its own time limit.  Afterwards each ps[i]->res
 * is filled; free it with gm_proc_result_free. */
void gm_proc_wait(gm_proc *const *ps, size_t n);

/* gm_proc_start then gm_proc_wait: *res filled (free it with
 * gm_proc_result_free, also after a failed start). */
gm_status gm_proc_run(const gm_proc_spec *spec, gm_proc_result *res, int *start_errno,
                      gm_error *err);

void gm_proc_result_free(gm_proc_result *r);

/* The program exec would run: name itself when it has a '/', else the first
 * executable regular file of that name on this process's PATH; made absolute
 * when cwd is given (the child runs there).  NULL with errno set (ENOENT,
 * EACCES) when there is none.  Caller frees. */
char *gm_proc_find(const char *name, const char *cwd);

#ifdef __cplusplus
}
#endif

#endif

/* program.h — a program run under the profiler: `gpumem-report -- PROGRAM`
 * starts it here, with the injection library (collectors/inject.h) loaded by
 * the CUDA driver and told what to profile through its environment.
 *
 * orchestrate/ is the layer between cli/ (options, messages, exit codes) and
 * the rest: it starts the processes of a run and puts together what they
 * give back.  It never exits; errors are gm_error messages, and what it
 * prints goes to the FILE it is given. */
#ifndef GM_ORCH_PROGRAM_H
#define GM_ORCH_PROGRAM_H

#include "../core/gm_error.h"

#include <stdbool.h>

typedef struct {
    const char *prog;        /* the program's path (found already: it is exec'ed as is) */
    char *const *argv;       /* its arguments, NULL-terminated; argv[0] as the user gave it */
    const char *lib;         /* the injection library (an absolute path) */
    const char *dir;         /* the private directory the library writes into */
    const char *metrics;     /* --metrics; NULL: the library's default set */
    const char *kernel;      /* --kernel REGEX; NULL: every kernel */
    const char *no_replay;   /* --no-replay REGEX; NULL: the built-in collectives only */
    long long launch_skip;   /* --launch-skip; < 0: not given */
    long long launch_count;  /* --launch-count; < 0: not given */
    bool no_cache_flush;     /* --no-cache-flush */
    bool capture;            /* keep the first launch of each kernel for the per-line
                                pass (GPUMEM_REPORT_CAPTURE, collectors/replay_file.h) */
} gm_program_spec;

/* Run the program with the library loaded and wait for it.  Its stdin,
 * stdout and stderr are this process's, it stays in this process's group
 * (the terminal's ^C reaches it), and this process ignores SIGINT and
 * SIGQUIT while it runs, as system() does, so that a ^C ends the program and
 * the results of what ran are still written; the program gets SIGTERM if
 * this process dies first.  Returns its exit status as a shell gives it
 * (128 + the signal that ended it, *sig set), or -1 when it could not be
 * started (err says why: "cannot run 'PROGRAM': ..."). */
int gm_program_run(const gm_program_spec *s, int *sig, gm_error *err);

#endif

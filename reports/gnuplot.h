/* gnuplot.h — one run of gnuplot, the program that draws the charts
 * (charts.c plans them and reads back what it drew).  Private to reports/. */
#ifndef GM_GNUPLOT_H
#define GM_GNUPLOT_H

#include "../core/gm_error.h"

#include <stddef.h>

typedef enum { GM_GP_OK, GM_GP_FAILED, GM_GP_FATAL } gm_gp_result;

/* One gnuplot run of `script` in the private directory `dir`: the program
 * `prog` (gnuplot as the user named it, for messages) in its own process
 * group (killed as a group: a gnuplot that is a shell script leaves no child
 * behind), killed with this process (core/proc.h), registered for the signal
 * handler, waited for at most timeout_s (<= 0: no limit).  It writes its
 * script and its error log (gnuplot.log) in dir and removes them.
 * GM_GP_FAILED: it ran and exited non-zero (*excerpt: its first error lines);
 * GM_GP_FATAL: missing, killed, timed out (err set). */
gm_gp_result gm_gnuplot_run(const char *dir, const char *prog, const char *gnuplot,
                            const char *script, double timeout_s, char *excerpt,
                            size_t excerpt_cap, gm_error *err);

#endif

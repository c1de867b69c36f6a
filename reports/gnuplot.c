/* gnuplot.c — one run of gnuplot (gnuplot.h), through core/proc.h. */
#include "gnuplot.h"

#include "../core/buf.h"
#include "../core/output.h"
#include "../core/proc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <string.h>
#include <unistd.h>

/* The first lines of gnuplot's error output, on one line each, for a message. */
static void S_log_excerpt(const char *logpath, char *out, size_t cap)
{
    out[0] = '\0';
    char *log = NULL;
    if (gm_file_read(logpath, &log, NULL) != GM_OK)
        return;
    size_t len = 0;
    int lines = 0;
    for (const char *p = log; *p && lines < 6 && len + 2 < cap; p++) {
        if (*p == '\n') {
            lines++;
            if (len && out[len - 1] != ' ')
                out[len++] = ' ';
            continue;
        }
        out[len++] = (unsigned char)*p < 0x20 ? ' ' : *p;
    }
    while (len && out[len - 1] == ' ')
        len--;
    out[len] = '\0';
    free(log);
}

gm_gp_result gm_gnuplot_run(const char *dir, const char *prog, const char *gnuplot,
                            const char *script, double timeout_s, char *excerpt,
                            size_t excerpt_cap, gm_error *err)
{
    excerpt[0] = '\0';
    char *scriptpath = gm_path_join(dir, "charts-XXXXXX.gp");
    char *logpath = gm_path_join(dir, "gnuplot.log");
    gm_gp_result res = GM_GP_FATAL;
    int script_slot = -1;
    int fd = mkstemps(scriptpath, 3);
    if (fd < 0) {
        gm_fail(err, GM_ERR_IO, "%s: %s", scriptpath, strerror(errno));
        goto done;
    }
    script_slot = gm_cleanup_add_path(scriptpath, false);
    if (gm_fd_write_all(fd, scriptpath, script, strlen(script), err) != GM_OK) {
        close(fd);
        goto done;
    }
    if (close(fd) != 0) {
        gm_fail(err, GM_ERR_IO, "%s: %s", scriptpath, strerror(errno));
        goto done;
    }

    /* Its environment: PATH, HOME in the private directory (so no ~/.gnuplot
     * changes the charts), and a UTF-8 C locale (the script says `set encoding
     * utf8`; under plain C gnuplot warns that iconv cannot convert the degree
     * sign). */
    const char *path = getenv("PATH");
    gm_buf envpath = GM_BUF_INIT, envhome = GM_BUF_INIT;
    gm_buf_printf(&envpath, "PATH=%s", path ? path : "/usr/local/bin:/usr/bin:/bin");
    gm_buf_printf(&envhome, "HOME=%s", dir);
    char *envp[] = {envpath.data, envhome.data, "LC_ALL=C.UTF-8", NULL};
    const char *base = strrchr(scriptpath, '/') + 1;
    char *argv[] = {(char *)prog, (char *)base, NULL};
    gm_proc_spec spec = {.argv = argv, .envp = envp, .cwd = dir, .null_stdin = true,
                         .out = GM_PROC_NULL, .err = GM_PROC_FILE, .err_path = "gnuplot.log",
                         .own_group = true, .death_signal = SIGKILL, .timeout_s = timeout_s};
    gm_proc_result r;
    int start_errno = 0;
    gm_error perr = {GM_OK, ""};
    gm_status st = gm_proc_run(&spec, &r, &start_errno, &perr);
    gm_buf_free(&envpath);
    gm_buf_free(&envhome);
    gm_proc_result_free(&r);
    if (st != GM_OK && start_errno == ENOENT) {
        gm_fail(err, GM_ERR_GNUPLOT,
                "gnuplot not found ('%s'): the charts are drawn by gnuplot; install it "
                "(Debian/Ubuntu: apt-get install gnuplot-nox) or name the program with "
                "--gnuplot PATH", gnuplot);
        goto done;
    }
    if (st != GM_OK) {
        gm_fail(err, GM_ERR_GNUPLOT, "cannot run gnuplot '%s': %s", gnuplot,
                start_errno ? strerror(start_errno) : perr.message);
        goto done;
    }
    if (r.timed_out) {
        gm_fail(err, GM_ERR_GNUPLOT,
                "gnuplot '%s' did not finish within %g s and was stopped; give it longer with "
                "--gnuplot-timeout SECONDS (0: no limit)", gnuplot, timeout_s);
        goto done;
    }
    if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 127) {
        gm_fail(err, GM_ERR_GNUPLOT,
                "gnuplot not found ('%s'): the charts are drawn by gnuplot; install it "
                "(Debian/Ubuntu: apt-get install gnuplot-nox) or name the program with "
                "--gnuplot PATH", gnuplot);
        goto done;
    }
    if (!WIFEXITED(r.status)) {
        gm_fail(err, GM_ERR_GNUPLOT, "gnuplot '%s' was killed by signal %d", gnuplot,
                WTERMSIG(r.status));
        goto done;
    }
    if (WEXITSTATUS(r.status) != 0) {
        S_log_excerpt(logpath, excerpt, excerpt_cap);
        if (!excerpt[0])
            snprintf(excerpt, excerpt_cap, "exit status %d, no message", WEXITSTATUS(r.status));
        else {
            char tmp[600];
            snprintf(tmp, sizeof tmp, "exit status %d: %s", WEXITSTATUS(r.status), excerpt);
            snprintf(excerpt, excerpt_cap, "%s", tmp);
        }
        res = GM_GP_FAILED;
        goto done;
    }
    res = GM_GP_OK;
done:
    unlink(scriptpath);
    unlink(logpath);
    gm_cleanup_remove(script_slot);
    free(scriptpath);
    free(logpath);
    return res;
}

/* proc.c — child processes (proc.h): start, relay or capture, time limit,
 * the process group killed, the cleanup table kept. */
#include "proc.h"

#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double S_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool S_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *gm_proc_find(const char *name, const char *cwd)
{
    char *found = NULL;
    if (strchr(name, '/')) {
        found = gm_xstrdup(name);
    } else {
        const char *path = getenv("PATH");
        char *copy = gm_xstrdup(path ? path : "/bin:/usr/bin");
        int why = ENOENT;
        /* an empty element is the current directory, as for execvp */
        for (char *d = copy, *next; d && !found; d = next) {
            next = strchr(d, ':');
            if (next)
                *next++ = '\0';
            gm_buf b = GM_BUF_INIT;
            gm_buf_printf(&b, "%s/%s", *d ? d : ".", name);
            if (S_executable(b.data))
                found = gm_buf_detach(&b);
            else {
                if (access(b.data, F_OK) == 0)
                    why = EACCES;
                gm_buf_free(&b);
            }
        }
        free(copy);
        if (!found) {
            errno = why;
            return NULL;
        }
    }
    if (cwd && found[0] != '/') {
        char here[PATH_MAX];
        if (!getcwd(here, sizeof here)) {
            free(found);
            return NULL;
        }
        char *abs = gm_path_join(here, found);
        free(found);
        found = abs;
    }
    return found;
}

/* The child's environment: base, less the names changes unset or set, plus
 * what they set.  The strings are borrowed. */
static char **S_env(char *const *base, const char *const *changes)
{
    size_t nb = 0, nc = 0;
    while (base && base[nb])
        nb++;
    while (changes && changes[nc])
        nc++;
    char **env = gm_xcalloc(nb + nc + 1, sizeof *env);
    size_t n = 0;
    for (size_t i = 0; i < nb; i++) {
        size_t len = strcspn(base[i], "=");
        bool changed = false;
        for (size_t k = 0; k < nc && !changed; k++)
            changed = strncmp(changes[k], base[i], len) == 0 &&
                      (changes[k][len] == '=' || changes[k][len] == '\0');
        if (!changed)
            env[n++] = base[i];
    }
    for (size_t k = 0; k < nc; k++)
        if (strchr(changes[k], '='))
            env[n++] = (char *)changes[k];
    env[n] = NULL;
    return env;
}

/* The disposition a child starts with for sig: ignored stays ignored (nohup),
 * anything else is the default: a handler of this process must not run in the
 * child between the fork and the exec (it would clean up the parent's files). */
static void S_child_signal(int sig, const struct sigaction *was)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = was->sa_handler == SIG_IGN ? SIG_IGN : SIG_DFL;
    sigaction(sig, &sa, NULL);
}

/* What the child tells the parent when it cannot exec. */
static void S_child_fail(int fd)
{
    int e = errno;
    ssize_t w = write(fd, &e, sizeof e);
    (void)w;
    _exit(127);
}

static int S_open_into(const char *path, int flags, mode_t mode, int target)
{
    int fd = open(path, flags, mode);
    if (fd < 0)
        return -1;
    if (fd != target) {
        if (dup2(fd, target) < 0)
            return -1;
        close(fd);
    }
    return 0;
}

/* Between fork and exec: async-signal-safe calls only. */
static void S_child(const gm_proc_spec *s, const char *prog, char *const *envp, pid_t parent,
                    const int *po, const int *pe, int fail_fd, const gm_proc *p)
{
    if (s->own_group)
        (void)setpgid(0, 0);
    if (s->death_signal) {
        (void)prctl(PR_SET_PDEATHSIG, s->death_signal);
        if (getppid() != parent)   /* the parent died before the death signal was set */
            _exit(128 + s->death_signal);
    }
    const int sigs[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction was;
        if (s->ignore_interrupts && sigs[i] == SIGINT)
            was = p->old_int;
        else if (s->ignore_interrupts && sigs[i] == SIGQUIT)
            was = p->old_quit;
        else
            sigaction(sigs[i], NULL, &was);
        S_child_signal(sigs[i], &was);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (s->cwd && chdir(s->cwd) != 0)
        S_child_fail(fail_fd);
    if (s->null_stdin && S_open_into("/dev/null", O_RDONLY, 0, STDIN_FILENO) != 0)
        S_child_fail(fail_fd);
    switch (s->out) {
    case GM_PROC_NULL:
        if (S_open_into("/dev/null", O_WRONLY, 0, STDOUT_FILENO) != 0)
            S_child_fail(fail_fd);
        break;
    case GM_PROC_FILE:
        if (S_open_into(s->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600, STDOUT_FILENO) != 0)
            S_child_fail(fail_fd);
        break;
    case GM_PROC_CAPTURE:
    case GM_PROC_RELAY:
        if (dup2(po[1], STDOUT_FILENO) < 0)
            S_child_fail(fail_fd);
        break;
    default:
        break;
    }
    switch (s->err) {
    case GM_PROC_NULL:
        if (S_open_into("/dev/null", O_WRONLY, 0, STDERR_FILENO) != 0)
            S_child_fail(fail_fd);
        break;
    case GM_PROC_FILE:
        if (S_open_into(s->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600, STDERR_FILENO) != 0)
            S_child_fail(fail_fd);
        break;
    case GM_PROC_CAPTURE:
        if (dup2(pe[1], STDERR_FILENO) < 0)
            S_child_fail(fail_fd);
        break;
    case GM_PROC_MERGE:
        if (dup2(STDOUT_FILENO, STDERR_FILENO) < 0)
            S_child_fail(fail_fd);
        break;
    default:
        break;
    }
    for (int k = 0; k < 2; k++) {
        if (po[k] > STDERR_FILENO)
            close(po[k]);
        if (pe[k] > STDERR_FILENO)
            close(pe[k]);
    }
    execve(prog, s->argv, envp);
    S_child_fail(fail_fd);
}

static void S_close(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

gm_status gm_proc_start(gm_proc *p, const gm_proc_spec *s, int *start_errno, gm_error *err)
{
    memset(p, 0, sizeof *p);
    p->fd_out = p->fd_err = p->slot = -1;
    p->pid = -1;
    p->spec = s;
    if (start_errno)
        *start_errno = 0;
    const char *name = s->path ? s->path : s->argv[0];
    char *prog = gm_proc_find(name, s->cwd);
    if (!prog) {
        int e = errno;
        if (start_errno)
            *start_errno = e;
        return gm_fail(err, GM_ERR_IO, "cannot run '%s': %s", name, strerror(e));
    }
    char **envp = S_env(s->envp ? s->envp : environ, s->env);
    int po[2] = {-1, -1}, pe[2] = {-1, -1}, pf[2] = {-1, -1};
    bool want_out = s->out == GM_PROC_CAPTURE || s->out == GM_PROC_RELAY;
    bool want_err = s->err == GM_PROC_CAPTURE;
    gm_status st = GM_OK;
    int e = 0;
    if ((want_out && pipe(po) != 0) || (want_err && pipe(pe) != 0) || pipe(pf) != 0) {
        e = errno;
        st = gm_fail(err, GM_ERR_IO, "cannot run '%s': pipe: %s", name, strerror(e));
        goto done;
    }
    for (int k = 0; k < 2; k++) {
        (void)fcntl(pf[k], F_SETFD, FD_CLOEXEC);
        if (want_out)
            (void)fcntl(po[k], F_SETFD, FD_CLOEXEC);
        if (want_err)
            (void)fcntl(pe[k], F_SETFD, FD_CLOEXEC);
    }
    fflush(NULL);
    if (s->ignore_interrupts) {
        struct sigaction ign;
        memset(&ign, 0, sizeof ign);
        ign.sa_handler = SIG_IGN;
        sigemptyset(&ign.sa_mask);
        sigaction(SIGINT, &ign, &p->old_int);
        sigaction(SIGQUIT, &ign, &p->old_quit);
    }
    /* no signal between the fork and the registration of the child (the
     * handler kills only what is registered) */
    sigset_t block, saved;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGQUIT);
    sigprocmask(SIG_BLOCK, &block, &saved);
    pid_t parent = getpid();
    p->t0 = S_now();
    pid_t pid = fork();
    if (pid == 0)
        S_child(s, prog, envp, parent, po, pe, pf[1], p);
    if (pid > 0) {
        if (s->own_group) {
            (void)setpgid(pid, pid);   /* as the child does: whichever runs first */
            p->slot = gm_cleanup_add_pid(pid);
        }
    }
    sigprocmask(SIG_SETMASK, &saved, NULL);
    if (pid < 0) {
        e = errno;
        st = gm_fail(err, GM_ERR_IO, "cannot run '%s': fork: %s", name, strerror(e));
        goto done;
    }
    close(pf[1]);
    pf[1] = -1;
    /* nothing read: the exec happened and closed the pipe */
    int child_errno = 0;
    ssize_t got;
    while ((got = read(pf[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR)
        ;
    if (got == (ssize_t)sizeof child_errno) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        gm_cleanup_remove(p->slot);
        p->slot = -1;
        e = child_errno;
        st = gm_fail(err, GM_ERR_IO, "cannot run '%s': %s", name, strerror(e));
        goto done;
    }
    p->pid = pid;
    p->deadline = s->timeout_s > 0 ? p->t0 + s->timeout_s : 0;
    if (want_out) {
        p->fd_out = po[0];
        po[0] = -1;
    }
    if (want_err) {
        p->fd_err = pe[0];
        pe[0] = -1;
    }
done:
    for (int k = 0; k < 2; k++) {
        S_close(&po[k]);
        S_close(&pe[k]);
        S_close(&pf[k]);
    }
    if (st != GM_OK && s->ignore_interrupts) {
        sigaction(SIGINT, &p->old_int, NULL);
        sigaction(SIGQUIT, &p->old_quit, NULL);
    }
    if (start_errno)
        *start_errno = e;
    free(envp);
    free(prog);
    return st;
}

/* Relay the complete lines of p->line (all of it when flush) as prefix + line. */
static void S_relay(gm_proc *p, bool flush)
{
    const gm_proc_spec *s = p->spec;
    const char *pre = s->relay_prefix ? s->relay_prefix : "";
    gm_buf *l = &p->line;
    size_t start = 0;
    for (size_t i = 0; i < l->len; i++) {
        if (l->data[i] != '\n')
            continue;
        fprintf(s->relay, "%s%.*s\n", pre, (int)(i - start), l->data + start);
        start = i + 1;
    }
    if (flush && start < l->len) {
        fprintf(s->relay, "%s%.*s\n", pre, (int)(l->len - start), l->data + start);
        start = l->len;
    }
    memmove(l->data, l->data + start, l->len - start);
    l->len -= start;
    if (l->data)
        l->data[l->len] = '\0';
    fflush(s->relay);
}

/* Keep the last `tail` bytes of b (0: all). */
static void S_trim(gm_buf *b, size_t tail)
{
    if (!tail || b->len <= 2 * tail)
        return;
    memmove(b->data, b->data + b->len - tail, tail);
    b->len = tail;
    b->data[b->len] = '\0';
}

static void S_read(gm_proc *p, int *fd, bool is_err)
{
    char chunk[65536];
    ssize_t k = read(*fd, chunk, sizeof chunk);
    if (k < 0 && errno == EINTR)
        return;
    if (k <= 0) {
        S_close(fd);
        if (!is_err && p->spec->out == GM_PROC_RELAY)
            S_relay(p, true);
        return;
    }
    if (is_err) {
        gm_buf_put(&p->res.err, chunk, (size_t)k);
        S_trim(&p->res.err, p->spec->err_tail);
    } else if (p->spec->out == GM_PROC_RELAY) {
        gm_buf_put(&p->line, chunk, (size_t)k);
        S_relay(p, false);
    } else {
        gm_buf_put(&p->res.out, chunk, (size_t)k);
    }
}

static void S_reaped(gm_proc *p, int status)
{
    p->reaped = true;
    p->res.status = status;
    p->res.seconds = S_now() - p->t0;
    if (WIFEXITED(status)) {
        p->res.code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        p->res.signal = WTERMSIG(status);
        p->res.code = 128 + p->res.signal;
    }
    /* whatever its group left (a shell script's children) goes too */
    if (p->spec->own_group)
        (void)kill(-p->pid, SIGKILL);
    gm_cleanup_remove(p->slot);
    p->slot = -1;
    if (p->spec->ignore_interrupts) {
        sigaction(SIGINT, &p->old_int, NULL);
        sigaction(SIGQUIT, &p->old_quit, NULL);
    }
}

/* Past its deadline: the child and its group killed, its pipes no longer read. */
static void S_kill(gm_proc *p)
{
    if (p->spec->own_group)
        (void)kill(-p->pid, SIGKILL);
    (void)kill(p->pid, SIGKILL);
    p->res.timed_out = true;
    S_close(&p->fd_out);
    if (p->spec->out == GM_PROC_RELAY)
        S_relay(p, true);
    S_close(&p->fd_err);
    int status = 0;
    while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
        ;
    S_reaped(p, status);
}

void gm_proc_wait(gm_proc *const *ps, size_t n)
{
    struct pollfd *pf = gm_xcalloc(2 * n + 1, sizeof *pf);
    for (;;) {
        double now = S_now(), next = 0;
        size_t np = 0, running = 0;
        for (size_t i = 0; i < n; i++) {
            gm_proc *p = ps[i];
            if (p->pid <= 0 || (p->reaped && p->fd_out < 0 && p->fd_err < 0))
                continue;
            if (!p->reaped && p->deadline > 0 && now >= p->deadline) {
                S_kill(p);
                continue;
            }
            running++;
            if (!p->reaped && p->deadline > 0 && (next == 0 || p->deadline < next))
                next = p->deadline;
            if (p->fd_out >= 0)
                pf[np++] = (struct pollfd){p->fd_out, POLLIN, 0};
            if (p->fd_err >= 0)
                pf[np++] = (struct pollfd){p->fd_err, POLLIN, 0};
        }
        if (running == 0)
            break;
        /* a child with no pipe left is looked at every 5 ms (as its deadline
         * is), one with pipes when they speak or close */
        bool pipeless = false;
        for (size_t i = 0; i < n; i++)
            pipeless |= ps[i]->pid > 0 && !ps[i]->reaped && ps[i]->fd_out < 0 &&
                        ps[i]->fd_err < 0;
        int ms = -1;
        if (pipeless)
            ms = 5;
        if (next > 0) {
            double left = (next - now) * 1000.0;
            int lms = left < 1 ? 1 : left > 1000 ? 1000 : (int)left;
            ms = ms < 0 || lms < ms ? lms : ms;
        }
        if (np == 0 && n == 1 && ms < 0) {
            /* one child, no pipe, no limit: wait for it */
            int status = 0;
            while (waitpid(ps[0]->pid, &status, 0) < 0 && errno == EINTR)
                ;
            S_reaped(ps[0], status);
            continue;
        }
        if (np > 0) {
            int r = poll(pf, (nfds_t)np, ms);
            if (r < 0 && errno != EINTR)
                ms = 5;   /* cannot poll: fall back to looking every 5 ms */
        } else {
            struct timespec nap = {0, (long)(ms < 0 ? 5 : ms) * 1000 * 1000};
            nanosleep(&nap, NULL);
        }
        for (size_t k = 0; k < np; k++) {
            if (!(pf[k].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))
                continue;
            for (size_t i = 0; i < n; i++) {
                if (ps[i]->fd_out == pf[k].fd)
                    S_read(ps[i], &ps[i]->fd_out, false);
                else if (ps[i]->fd_err == pf[k].fd)
                    S_read(ps[i], &ps[i]->fd_err, true);
            }
        }
        /* reaped as soon as it ends; its pipes are read to their end (what it
         * wrote last), unless its group was killed with them */
        for (size_t i = 0; i < n; i++) {
            gm_proc *p = ps[i];
            if (p->pid <= 0 || p->reaped)
                continue;
            int status = 0;
            pid_t w = waitpid(p->pid, &status, WNOHANG);
            if (w == p->pid)
                S_reaped(p, status);
            else if (w < 0 && errno == ECHILD) {
                p->reaped = true;   /* reaped by someone else: nothing to learn */
                gm_cleanup_remove(p->slot);
                p->slot = -1;
            }
        }
    }
    free(pf);
    for (size_t i = 0; i < n; i++) {
        gm_buf_free(&ps[i]->line);
        gm_buf *e = &ps[i]->res.err;
        size_t t = ps[i]->spec->err_tail;
        if (t && e->len > t) {
            memmove(e->data, e->data + e->len - t, t);
            e->len = t;
            e->data[t] = '\0';
        }
    }
}

gm_status gm_proc_run(const gm_proc_spec *spec, gm_proc_result *res, int *start_errno,
                      gm_error *err)
{
    gm_proc p;
    gm_status st = gm_proc_start(&p, spec, start_errno, err);
    if (st != GM_OK) {
        memset(res, 0, sizeof *res);
        return st;
    }
    gm_proc *one = &p;
    gm_proc_wait(&one, 1);
    *res = p.res;
    return GM_OK;
}

void gm_proc_result_free(gm_proc_result *r)
{
    gm_buf_free(&r->out);
    gm_buf_free(&r->err);
}

/* output.c — the one rule for every file written (output.h), the cleanup
 * table the signal handler empties, and files read and written whole. */
#include "output.h"

#include "buf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

char *gm_path_join(const char *dir, const char *name)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "%s/%s", dir, name);
    return gm_buf_detach(&b);
}

gm_status gm_file_read(const char *path, char **out, gm_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gm_fail(err, GM_ERR_IO, "%s: %s", path, strerror(errno));
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "");
    char chunk[16384];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        gm_buf_put(&b, chunk, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        gm_buf_free(&b);
        return gm_fail(err, GM_ERR_IO, "%s: read error", path);
    }
    *out = gm_buf_detach(&b);
    return GM_OK;
}

gm_status gm_fd_write_all(int fd, const char *name, const char *data, size_t len, gm_error *err)
{
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return gm_fail(err, GM_ERR_IO, "%s: %s", name, w < 0 ? strerror(errno) : "short write");
        off += (size_t)w;
    }
    return GM_OK;
}

gm_status gm_file_create(const char *path, const char *data, size_t len, gm_error *err)
{
    /* open() applies the umask to 0666 itself */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0)
        return gm_fail(err, GM_ERR_IO, "%s: %s", path, strerror(errno));
    gm_status st = gm_fd_write_all(fd, path, data, len, err);
    if (close(fd) != 0 && st == GM_OK)
        st = gm_fail(err, GM_ERR_IO, "%s: %s", path, strerror(errno));
    if (st != GM_OK)
        unlink(path);
    return st;
}

static unsigned long long S_reserve(unsigned long long size)
{
    unsigned long long pct = size / 100 * GM_FS_RESERVE_PCT;
    return pct > GM_FS_RESERVE_MIN ? pct : GM_FS_RESERVE_MIN;
}

bool gm_fs_leaves_room(unsigned long long avail, unsigned long long size,
                       unsigned long long want)
{
    return want <= avail && avail - want >= S_reserve(size);
}

gm_status gm_fs_room(const char *dir, unsigned long long want, gm_error *err)
{
    struct statvfs v;
    if (statvfs(dir, &v) != 0)
        return gm_fail(err, GM_ERR_IO, "%s: %s", dir, strerror(errno));
    unsigned long long unit = v.f_frsize ? v.f_frsize : v.f_bsize;
    unsigned long long avail = (unsigned long long)v.f_bavail * unit;
    unsigned long long size = (unsigned long long)v.f_blocks * unit;
    if (gm_fs_leaves_room(avail, size, want))
        return GM_OK;
    return gm_fail(err, GM_ERR_IO,
                   "%s has %.2f GiB free; writing %.2f GiB there would leave less than the "
                   "%.2f GiB kept free",
                   dir, (double)avail / (1 << 30), (double)want / (1 << 30),
                   (double)S_reserve(size) / (1 << 30));
}

/* The mode a new file would get: 0666 less the umask (mkstemp gives 0600). */
static mode_t S_file_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

gm_status gm_file_write_temp(const char *path, const char *data, size_t len, char **tmp,
                             gm_error *err)
{
    *tmp = NULL;
    const char *slash = strrchr(path, '/');
    gm_buf t = GM_BUF_INIT;
    if (slash)
        gm_buf_printf(&t, "%.*s/.%s.tmp-XXXXXX", (int)(slash - path), path, slash + 1);
    else
        gm_buf_printf(&t, ".%s.tmp-XXXXXX", path);
    char *name = gm_buf_detach(&t);
    int fd = mkstemp(name);
    if (fd < 0) {
        gm_status st = gm_fail(err, GM_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        free(name);
        return st;
    }
    gm_status st = gm_fd_write_all(fd, name, data, len, err);
    if (st == GM_OK && fchmod(fd, S_file_mode()) != 0)
        st = gm_fail(err, GM_ERR_IO, "%s: %s", name, strerror(errno));
    if (close(fd) != 0 && st == GM_OK)
        st = gm_fail(err, GM_ERR_IO, "%s: %s", name, strerror(errno));
    if (st != GM_OK) {
        unlink(name);
        free(name);
        return st;
    }
    *tmp = name;
    return GM_OK;
}

gm_status gm_file_replace(const char *tmp, const char *path, gm_error *err)
{
    if (rename(tmp, path) == 0)
        return GM_OK;
    gm_status st = gm_fail(err, GM_ERR_IO, "cannot rename %s to %s: %s", tmp, path,
                           strerror(errno));
    unlink(tmp);
    return st;
}

gm_status gm_file_write_atomic(const char *path, const char *data, size_t len, gm_error *err)
{
    char *tmp = NULL;
    gm_status st = gm_file_write_temp(path, data, len, &tmp, err);
    if (st == GM_OK)
        st = gm_file_replace(tmp, path, err);
    free(tmp);
    return st;
}

/* ---- cleanup on a signal --------------------------------------------------- */

#define GM_CLEANUP_SLOTS 64
static struct {
    volatile sig_atomic_t used;   /* 0 free, 1 path, 2 directory, 3 pid, 4 taken, being
                                     written (the handler skips it) */
    pid_t pid;
    char path[PATH_MAX];
    char *const *names;           /* 2: the files that may be in it (borrowed) */
    size_t n_names;
} S_slots[GM_CLEANUP_SLOTS];

/* The table changes with the handler's signals blocked, so that it never sees
 * a slot half written (a directory's names being replaced). */
static void S_block(sigset_t *saved)
{
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, saved);
}

/* A free slot, taken (4) at once: two threads never get the same one. */
static int S_slot_take(void)
{
    for (int i = 0; i < GM_CLEANUP_SLOTS; i++) {
        sig_atomic_t free_ = 0;
        if (__atomic_compare_exchange_n(&S_slots[i].used, &free_, 4, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED))
            return i;
    }
    return -1;
}

int gm_cleanup_add_path(const char *path, bool is_dir)
{
    return gm_cleanup_add_dir_files(path, is_dir, NULL, 0);
}

int gm_cleanup_add_dir_files(const char *path, bool is_dir, char *const *names, size_t n_names)
{
    sigset_t saved;
    S_block(&saved);
    int i = S_slot_take();
    if (i >= 0 && strlen(path) < sizeof S_slots[i].path) {
        memcpy(S_slots[i].path, path, strlen(path) + 1);
        S_slots[i].names = names;
        S_slots[i].n_names = n_names;
        S_slots[i].used = is_dir ? 2 : 1;
    } else {
        if (i >= 0)
            S_slots[i].used = 0;
        i = -1;
    }
    sigprocmask(SIG_SETMASK, &saved, NULL);
    return i;
}

void gm_cleanup_set_names(int slot, char *const *names, size_t n_names)
{
    if (slot < 0 || slot >= GM_CLEANUP_SLOTS)
        return;
    sigset_t saved;
    S_block(&saved);
    S_slots[slot].names = names;
    S_slots[slot].n_names = n_names;
    sigprocmask(SIG_SETMASK, &saved, NULL);
}

int gm_cleanup_add_pid(pid_t pid)
{
    sigset_t saved;
    S_block(&saved);
    int i = S_slot_take();
    if (i >= 0) {
        S_slots[i].pid = pid;
        S_slots[i].used = 3;
    }
    sigprocmask(SIG_SETMASK, &saved, NULL);
    return i;
}

void gm_cleanup_remove(int slot)
{
    if (slot >= 0 && slot < GM_CLEANUP_SLOTS) {
        S_slots[slot].used = 0;
        S_slots[slot].names = NULL;
        S_slots[slot].n_names = 0;
    }
}

void gm_remove_dir(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        int dfd = dirfd(d);
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                (void)unlinkat(dfd, e->d_name, 0);
        closedir(d);
    }
    (void)rmdir(path);
}

/* In the signal handler: async-signal-safe calls only (POSIX.1-2017 2.4.3:
 * kill, waitpid, unlink, rmdir, strlen, memcpy), no folder opened, nothing
 * allocated: a directory's files are the names registered with it, joined
 * to its path on the stack.  A file nobody named leaves the folder in place;
 * gm_tmpdir_sweep removes it at the next run. */
void gm_cleanup_run(void)
{
    for (int i = 0; i < GM_CLEANUP_SLOTS; i++) {
        if (S_slots[i].used == 3) {
            /* the child leads its own process group (what it started too) */
            (void)kill(-S_slots[i].pid, SIGKILL);
            (void)kill(S_slots[i].pid, SIGKILL);
            (void)waitpid(S_slots[i].pid, NULL, 0);
        }
    }
    for (int i = 0; i < GM_CLEANUP_SLOTS; i++)
        if (S_slots[i].used == 1)
            (void)unlink(S_slots[i].path);
    for (int i = 0; i < GM_CLEANUP_SLOTS; i++) {
        if (S_slots[i].used != 2)
            continue;
        const char *dir = S_slots[i].path;
        size_t dl = strlen(dir);
        for (size_t k = 0; k < S_slots[i].n_names; k++) {
            char p[PATH_MAX];
            size_t nl = strlen(S_slots[i].names[k]);
            if (dl + 1 + nl >= sizeof p)
                continue;
            memcpy(p, dir, dl);
            p[dl] = '/';
            memcpy(p + dl + 1, S_slots[i].names[k], nl + 1);
            (void)unlink(p);
        }
        (void)rmdir(dir);
    }
    for (int i = 0; i < GM_CLEANUP_SLOTS; i++)
        S_slots[i].used = 0;
}

/* ---- private temporary folders ---------------------------------------------- */

/* The file that says a folder was held: made once the lock is taken, so that a
 * fresh folder without it may be one whose maker has not locked it yet.  A
 * folder without it that has not changed for S_STALE_S seconds is stale too
 * (its maker died before it locked it, or a signal handler removed the files
 * it knew of and left one it did not). */
#define S_HELD ".held"
#define S_STALE_S 60

static char *S_tmp_base(void)
{
    const char *tmp = getenv("TMPDIR");
    return gm_xstrdup(tmp && *tmp ? tmp : "/tmp");
}

size_t gm_tmpdir_sweep(const char *prefix)
{
    char *base = S_tmp_base();
    DIR *d = opendir(base);
    size_t removed = 0, pl = strlen(prefix);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, pl) != 0 || e->d_name[pl] != '-')
            continue;
        char *path = gm_path_join(base, e->d_name);
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat sb;
        /* ours, marked held (or old), and nobody holds it now: its holder is gone */
        if (fd >= 0 && fstat(fd, &sb) == 0 && sb.st_uid == geteuid() &&
            (faccessat(fd, S_HELD, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
             time(NULL) - sb.st_mtime > S_STALE_S) &&
            flock(fd, LOCK_EX | LOCK_NB) == 0) {
            gm_remove_dir(path);
            removed += access(path, F_OK) != 0;
        }
        if (fd >= 0)
            close(fd);
        free(path);
    }
    if (d)
        closedir(d);
    free(base);
    return removed;
}

gm_status gm_tmpdir_make(gm_tmpdir *t, const char *prefix, gm_error *err)
{
    memset(t, 0, sizeof *t);
    t->fd = t->slot = -1;
    (void)gm_tmpdir_sweep(prefix);
    char *base = S_tmp_base();
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "%s/%s-XXXXXX", base, prefix);
    free(base);
    t->path = gm_buf_detach(&b);
    if (!mkdtemp(t->path)) {
        gm_status st = gm_fail(err, GM_ERR_IO, "cannot make a temporary directory %s: %s",
                               t->path, strerror(errno));
        free(t->path);
        t->path = NULL;
        return st;
    }
    t->names = gm_xcalloc(1, sizeof *t->names);
    t->names[t->n_names++] = gm_xstrdup(S_HELD);
    t->slot = gm_cleanup_add_dir_files(t->path, true, t->names, t->n_names);
    t->fd = open(t->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int held = t->fd >= 0 && flock(t->fd, LOCK_EX) == 0 ? 1 : 0;
    char *mark = gm_path_join(t->path, S_HELD);
    if (held)
        held = gm_file_create(mark, "", 0, NULL) == GM_OK;
    free(mark);
    if (!held) {
        gm_status st = gm_fail(err, GM_ERR_IO, "cannot hold the temporary directory %s: %s",
                               t->path, strerror(errno));
        gm_tmpdir_remove(t);
        return st;
    }
    return GM_OK;
}

void gm_tmpdir_expect(gm_tmpdir *t, const char *name)
{
    char **names = gm_xcalloc(t->n_names + 1, sizeof *names);
    memcpy(names, t->names, t->n_names * sizeof *names);
    names[t->n_names] = gm_xstrdup(name);
    /* the handler sees the old list or the new one, whole */
    gm_cleanup_set_names(t->slot, names, t->n_names + 1);
    free(t->names);
    t->names = names;
    t->n_names++;
}

void gm_tmpdir_remove(gm_tmpdir *t)
{
    if (t->path)
        gm_remove_dir(t->path);
    gm_cleanup_remove(t->slot);
    if (t->fd >= 0)
        close(t->fd);   /* releases the hold */
    for (size_t i = 0; i < t->n_names; i++)
        free(t->names[i]);
    free(t->names);
    free(t->path);
    memset(t, 0, sizeof *t);
    t->fd = t->slot = -1;
}

/* ---- the rule ---------------------------------------------------------------- */

static bool S_is_dev_path(const char *path)
{
    return strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0;
}

bool gm_output_is_stream(const char *path)
{
    if (strcmp(path, "-") == 0 || S_is_dev_path(path))
        return true;
    struct stat sb;
    return stat(path, &sb) == 0 && !S_ISREG(sb.st_mode);
}

static int S_stat_named(const char *path, bool output, struct stat *sb)
{
    if (strcmp(path, "-") == 0)
        return fstat(output ? STDOUT_FILENO : STDIN_FILENO, sb);
    return stat(path, sb);
}

gm_status gm_output_check(const char *path, const char *const *inputs, size_t n_inputs,
                          gm_error *err)
{
    struct stat out;
    /* only a regular file can be overwritten: a terminal or a FIFO read and
     * written by one command is the user's business */
    if (S_stat_named(path, true, &out) != 0 || !S_ISREG(out.st_mode))
        return GM_OK;
    for (size_t i = 0; i < n_inputs; i++) {
        struct stat in;
        if (!inputs[i] || S_stat_named(inputs[i], false, &in) != 0)
            continue;
        if (in.st_dev == out.st_dev && in.st_ino == out.st_ino)
            return gm_fail(err, GM_ERR_VALUE,
                           "%s is one of the inputs (the same file as %s): it is never "
                           "overwritten; choose another output", strcmp(path, "-") == 0
                               ? "standard output" : path, strcmp(inputs[i], "-") == 0
                               ? "standard input" : inputs[i]);
    }
    return GM_OK;
}


/* The regular file path names: a symlink to a regular file is followed, so
 * that the rename replaces the file and not the link (caller frees). */
static char *S_resolve(const char *path)
{
    struct stat sb;
    char *real;
    if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) && (real = realpath(path, NULL)) != NULL) {
        char *r = gm_xstrdup(real);
        free(real);
        return r;
    }
    return gm_xstrdup(path);
}

gm_status gm_output_open(gm_output *o, const char *path, const char *const *inputs,
                         size_t n_inputs, gm_error *err)
{
    memset(o, 0, sizeof *o);
    o->cleanup = -1;
    if (!path || !*path)
        return gm_fail(err, GM_ERR_VALUE, "no output file given");
    gm_status st = gm_output_check(path, inputs, n_inputs, err);
    if (st != GM_OK)
        return st;
    struct stat sb;
    if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return gm_fail(err, GM_ERR_IO, "%s is a directory: name a file", path);
    o->stream = gm_output_is_stream(path);
    o->path = o->stream ? gm_xstrdup(path) : S_resolve(path);
    return GM_OK;
}

/* A temporary file beside path holding data, registered for cleanup. */
static gm_status S_stage_temp(const char *path, const char *data, size_t len, bool sync,
                              char **tmp, int *slot, gm_error *err)
{
    *tmp = NULL;
    *slot = -1;
    const char *slash = strrchr(path, '/');
    gm_buf t = GM_BUF_INIT;
    if (slash)
        gm_buf_printf(&t, "%.*s/.%s.tmp-XXXXXX", (int)(slash - path), path, slash + 1);
    else
        gm_buf_printf(&t, ".%s.tmp-XXXXXX", path);
    char *name = gm_buf_detach(&t);
    int fd = mkstemp(name);
    if (fd < 0) {
        gm_status st = gm_fail(err, GM_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        free(name);
        return st;
    }
    *slot = gm_cleanup_add_path(name, false);
    gm_status st = gm_fd_write_all(fd, name, data, len, err);
    if (st == GM_OK && fchmod(fd, S_file_mode()) != 0)
        st = gm_fail(err, GM_ERR_IO, "%s: %s", name, strerror(errno));
    if (st == GM_OK && sync && fsync(fd) != 0)
        st = gm_fail(err, GM_ERR_IO, "%s: %s", name, strerror(errno));
    if (close(fd) != 0 && st == GM_OK)
        st = gm_fail(err, GM_ERR_IO, "%s: %s", name, strerror(errno));
    if (st != GM_OK) {
        unlink(name);
        gm_cleanup_remove(*slot);
        *slot = -1;
        free(name);
        return st;
    }
    *tmp = name;
    return GM_OK;
}

gm_status gm_output_stage(gm_output *o, const char *data, size_t len, gm_error *err)
{
    if (o->stream) {
        o->data = data;
        o->len = len;
        return GM_OK;
    }
    return S_stage_temp(o->path, data, len, true, &o->tmp, &o->cleanup, err);
}

gm_status gm_output_commit(gm_output *o, gm_error *err)
{
    if (o->stream) {
        if (strcmp(o->path, "-") == 0) {
            fflush(stdout);
            gm_status st = gm_fd_write_all(STDOUT_FILENO, "standard output", o->data, o->len,
                                           err);
            return st;
        }
        int fd = open(o->path, O_WRONLY | O_TRUNC | O_NOCTTY);
        if (fd < 0)
            return gm_fail(err, GM_ERR_IO, "%s: cannot open for writing: %s", o->path,
                           strerror(errno));
        gm_status st = gm_fd_write_all(fd, o->path, o->data, o->len, err);
        if (close(fd) != 0 && st == GM_OK)
            st = gm_fail(err, GM_ERR_IO, "%s: %s", o->path, strerror(errno));
        return st;
    }
    if (!o->tmp)
        return gm_fail(err, GM_ERR_IO, "%s: nothing staged", o->path);
    if (rename(o->tmp, o->path) != 0)
        return gm_fail(err, GM_ERR_IO, "cannot replace %s: %s", o->path, strerror(errno));
    gm_cleanup_remove(o->cleanup);
    o->cleanup = -1;
    free(o->tmp);
    o->tmp = NULL;
    return GM_OK;
}

void gm_output_close(gm_output *o)
{
    if (o->tmp)
        unlink(o->tmp);
    gm_cleanup_remove(o->cleanup);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
    o->cleanup = -1;
}

gm_status gm_output_write(const char *path, const char *data, size_t len,
                          const char *const *inputs, size_t n_inputs, gm_error *err)
{
    gm_output o;
    gm_status st = gm_output_open(&o, path, inputs, n_inputs, err);
    if (st != GM_OK)
        return st;
    st = gm_output_stage(&o, data, len, err);
    if (st == GM_OK)
        st = gm_output_commit(&o, err);
    gm_output_close(&o);
    return st;
}

/* "dir" of "dir/name" ("." when there is no slash; caller frees). */
static char *S_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return gm_xstrdup(".");
    if (slash == path)
        return gm_xstrdup("/");
    gm_buf b = GM_BUF_INIT;
    gm_buf_put(&b, path, (size_t)(slash - path));
    return gm_buf_detach(&b);
}

static const char *S_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* 1: every entry is owned; 0: something else is there; -1: not a directory */
static int S_dir_owned(const char *dir, bool (*owned)(const char *name))
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int ok = 1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (!owned || !owned(e->d_name))
            ok = 0;
    }
    closedir(d);
    return ok;
}

static int S_exchange(const char *a, const char *b)
{
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
#else
    (void)a;
    (void)b;
    errno = ENOSYS;
    return -1;
#endif
}

gm_status gm_output_write_with_dir(const char *path, const char *data, size_t len,
                                   const char *dir_path, const gm_output_file *files,
                                   size_t n_files, bool (*owned)(const char *name),
                                   const char *const *inputs, size_t n_inputs, gm_error *err)
{
    if (gm_output_is_stream(path))
        return gm_fail(err, GM_ERR_VALUE, "%s is not a regular file: it cannot have a folder "
                       "beside it", path);
    gm_status st = gm_output_check(path, inputs, n_inputs, err);
    if (st != GM_OK)
        return st;
    char *parent = S_parent(dir_path);
    char *new_dir = NULL, *old_dir = NULL, *tmp = NULL;
    char **names = NULL;   /* new_dir's files, for the signal handler */
    int new_slot = -1, old_slot = -1, tmp_slot = -1, lock_fd = -1;
    bool exchanged = false, moved_old = false, placed = false, blocked = false;
    sigset_t block, saved;

    if (n_files) {
        gm_buf nd = GM_BUF_INIT;
        gm_buf_printf(&nd, "%s/.%s.tmp-XXXXXX", parent, S_base(dir_path));
        new_dir = gm_buf_detach(&nd);
        if (!mkdtemp(new_dir)) {
            st = gm_fail(err, GM_ERR_IO, "cannot make %s: %s", dir_path, strerror(errno));
            free(new_dir);
            new_dir = NULL;
            goto done;
        }
        names = gm_xcalloc(n_files, sizeof *names);
        for (size_t i = 0; i < n_files; i++)
            names[i] = (char *)files[i].name;
        new_slot = gm_cleanup_add_dir_files(new_dir, true, names, n_files);
        /* mkdtemp makes it 0700: give it the mode a plain mkdir would */
        mode_t mask = umask(0);
        umask(mask);
        (void)chmod(new_dir, 0777 & ~mask);
        for (size_t i = 0; i < n_files && st == GM_OK; i++) {
            char *fn = gm_path_join(new_dir, files[i].name);
            st = gm_file_create(fn, files[i].data, files[i].len, err);
            free(fn);
        }
        if (st != GM_OK)
            goto done;
    }
    st = S_stage_temp(path, data, len, false, &tmp, &tmp_slot, err);
    if (st != GM_OK)
        goto done;
    if (!n_files) {
        if (rename(tmp, path) != 0) {
            st = gm_fail(err, GM_ERR_IO, "cannot replace %s: %s", path, strerror(errno));
            goto done;
        }
        free(tmp);
        tmp = NULL;
        goto done;
    }

    /* the swap: one writer of this folder at a time, and no signal between
     * the renames of the pair */
    lock_fd = open(parent, O_RDONLY | O_DIRECTORY);
    if (lock_fd < 0 || flock(lock_fd, LOCK_EX) != 0) {
        st = gm_fail(err, GM_ERR_IO, "cannot lock %s: %s", parent, strerror(errno));
        goto done;
    }
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &saved);
    blocked = true;

    struct stat sb;
    if (lstat(dir_path, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode) || S_dir_owned(dir_path, owned) != 1) {
            st = gm_fail(err, GM_ERR_IO, "%s exists and holds files gpumem-report did not "
                         "write: remove it or choose another output name", dir_path);
            goto done;
        }
        if (S_exchange(new_dir, dir_path) == 0) {
            exchanged = true;   /* new_dir now holds the old charts */
        } else {
            gm_buf od = GM_BUF_INIT;
            gm_buf_printf(&od, "%s/.%s.old-XXXXXX", parent, S_base(dir_path));
            old_dir = gm_buf_detach(&od);
            /* rename() replaces the empty directory mkdtemp made */
            if (!mkdtemp(old_dir)) {
                st = gm_fail(err, GM_ERR_IO, "cannot replace %s: %s", dir_path, strerror(errno));
                free(old_dir);
                old_dir = NULL;
                goto done;
            }
            /* registered and removed with the signals blocked: never seen by
             * the handler with the old charts in it */
            old_slot = gm_cleanup_add_path(old_dir, true);
            if (rename(dir_path, old_dir) != 0) {
                st = gm_fail(err, GM_ERR_IO, "cannot replace %s: %s", dir_path, strerror(errno));
                goto done;
            }
            moved_old = true;
        }
    }
    if (!exchanged) {
        if (rename(new_dir, dir_path) != 0) {
            st = gm_fail(err, GM_ERR_IO, "cannot rename %s to %s: %s", new_dir, dir_path,
                         strerror(errno));
            goto done;
        }
        placed = true;
    }
    if (rename(tmp, path) != 0) {
        st = gm_fail(err, GM_ERR_IO, "cannot replace %s: %s", path, strerror(errno));
        goto done;
    }
    free(tmp);
    tmp = NULL;
    exchanged = placed = moved_old = false;   /* committed: what is left is old */

done:
    if (st != GM_OK) {
        /* undo: the old folder comes back */
        if (exchanged)
            (void)S_exchange(new_dir, dir_path);
        if (placed) {
            (void)rename(dir_path, new_dir);
            if (moved_old)
                (void)rename(old_dir, dir_path);
        } else if (moved_old) {
            (void)rename(old_dir, dir_path);
        }
    }
    if (new_dir)
        gm_remove_dir(new_dir);   /* the new folder on failure, the old one (exchanged) on success */
    if (old_dir)
        gm_remove_dir(old_dir);
    if (tmp)
        unlink(tmp);
    gm_cleanup_remove(new_slot);
    gm_cleanup_remove(old_slot);
    gm_cleanup_remove(tmp_slot);
    if (blocked)
        sigprocmask(SIG_SETMASK, &saved, NULL);
    if (lock_fd >= 0)
        close(lock_fd);   /* releases the lock */
    free(new_dir);
    free(old_dir);
    free(tmp);
    free(names);
    free(parent);
    return st;
}

/* claim.c — one output, one writer (claim.h). */
#include "claim.h"

#include "buf.h"
#include "output.h"
#include "pathpat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes of a value put into a claim file or a message: letters, digits and
 * ". _ - : = ; @ /" kept, anything else '_', at most `max` of them. */
static void S_put_plain(gm_buf *b, const char *s, size_t max)
{
    for (size_t n = 0; s[n] && n < max; n++) {
        char c = s[n];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  strchr("._-:=;@/", c) != NULL;
        gm_buf_putc(b, ok ? c : '_');
    }
}

char *gm_claim_job_key(void)
{
    static const char *const vars[] = {"SLURM_JOB_ID", "SLURM_STEP_ID", "PMIX_NAMESPACE",
                                       "OMPI_MCA_ess_base_jobid", "PALS_APID",
                                       "TORCHELASTIC_RUN_ID"};
    static const char *const torch[] = {"MASTER_ADDR", "MASTER_PORT"};
    gm_buf b = GM_BUF_INIT;
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (!v || !*v)
            continue;
        gm_buf_printf(&b, "%s%s=", b.len ? ";" : "", vars[i]);
        S_put_plain(&b, v, 64);
    }
    if (getenv("TORCHELASTIC_RUN_ID"))
        for (size_t i = 0; i < sizeof torch / sizeof *torch; i++) {
            const char *v = getenv(torch[i]);
            if (!v || !*v)
                continue;
            gm_buf_printf(&b, ";%s=", torch[i]);
            S_put_plain(&b, v, 64);
        }
    if (b.len == 0) {
        gm_buf_free(&b);
        return NULL;
    }
    return gm_buf_detach(&b);
}

char *gm_claim_path(const char *path)
{
    if (!path || !*path)
        return NULL;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base)
        return NULL;
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "%.*s.%s.claim", (int)(base - path), path, base);
    return gm_buf_detach(&b);
}

/* The file path names: a symlink to a file is followed, as the output rule
 * follows it, so that two names of one file share one claim (caller frees). */
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

static int S_flock(int fd, int op)
{
    int r;
    do
        r = flock(fd, op);
    while (r != 0 && errno == EINTR);
    return r;
}

/* Open the claim file, creating it when missing (open first: with
 * fs.protected_regular an O_CREAT open of another user's file in a sticky
 * directory is refused).  Read-only when it cannot be written (another
 * user's: the lock works all the same).  Never through a symlink. */
static int S_open(const char *cpath)
{
    const int flags = O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
    for (int tries = 0; tries < 3; tries++) {
        int fd = open(cpath, O_RDWR | flags);
        if (fd < 0 && errno == EACCES)
            fd = open(cpath, O_RDONLY | flags);
        if (fd < 0 && errno == ENOENT)
            fd = open(cpath, O_RDWR | O_CREAT | O_EXCL | flags, 0666);
        if (fd >= 0 || (errno != EEXIST && errno != ENOENT))
            return fd;
    }
    return -1;
}

/* What a claim file says of its holder (values reduced to safe characters). */
typedef struct {
    long long pid;
    char host[80];
    bool has_rank;
    long long rank;
    char job[400];
} S_holder;

static void S_copy_plain(char *dst, size_t size, const char *s, size_t len)
{
    gm_buf b = GM_BUF_INIT;
    char *v = gm_xcalloc(len + 1, 1);
    memcpy(v, s, len);
    S_put_plain(&b, v, size - 1);
    snprintf(dst, size, "%s", b.data ? b.data : "");
    gm_buf_free(&b);
    free(v);
}

static void S_read_holder(int fd, S_holder *h)
{
    memset(h, 0, sizeof *h);
    char text[1024];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    if (n <= 0)
        return;
    text[n] = '\0';
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        size_t len = next ? (size_t)(next - line) : strlen(line);
        if (next)
            next++;
        char *sp = memchr(line, ' ', len);
        if (!sp)
            continue;
        size_t klen = (size_t)(sp - line);
        const char *v = sp + 1;
        size_t vlen = len - klen - 1;
        char num[24];
        snprintf(num, sizeof num, "%.*s", (int)(vlen < 23 ? vlen : 23), v);
        if (klen == 3 && memcmp(line, "pid", 3) == 0) {
            h->pid = strtoll(num, NULL, 10);
        } else if (klen == 4 && memcmp(line, "host", 4) == 0) {
            S_copy_plain(h->host, sizeof h->host, v, vlen);
        } else if (klen == 4 && memcmp(line, "rank", 4) == 0) {
            char *end = NULL;
            h->rank = strtoll(num, &end, 10);
            h->has_rank = end && end != num && *end == '\0';
        } else if (klen == 3 && memcmp(line, "job", 3) == 0) {
            S_copy_plain(h->job, sizeof h->job, v, vlen);
        }
    }
}

/* "rank 1, pid 4242 on node1" (as much as is known). */
static void S_holder_text(gm_buf *b, const S_holder *h)
{
    if (h->has_rank)
        gm_buf_printf(b, "rank %lld, ", h->rank);
    if (h->pid > 0)
        gm_buf_printf(b, "pid %lld", h->pid);
    else
        gm_buf_puts(b, "its pid not recorded yet");
    if (h->host[0])
        gm_buf_printf(b, " on %s", h->host);
}

#define S_ADVICE "put %%r (the rank) or %%p (the pid) in the pattern so that each process " \
                 "writes its own file"

gm_status gm_claim_take(gm_claim *c, const char *path, gm_error *err)
{
    if (c->fd >= 0)
        return GM_OK;
    if (!path || !*path || gm_output_is_stream(path))
        return GM_OK;
    char *target = S_resolve(path);
    char *cpath = gm_claim_path(target);
    free(target);
    if (!cpath)
        return GM_OK;
    int fd = -1;
    for (int tries = 0; tries < 8; tries++) {
        fd = S_open(cpath);
        struct stat held, named;
        if (fd >= 0 && (fstat(fd, &held) != 0 || !S_ISREG(held.st_mode))) {
            close(fd);
            fd = -1;
        }
        if (fd < 0)
            break;
        if (S_flock(fd, LOCK_EX | LOCK_NB) != 0) {
            if (errno == EWOULDBLOCK) {
                S_holder h;
                S_read_holder(fd, &h);
                close(fd);
                gm_buf who = GM_BUF_INIT;
                S_holder_text(&who, &h);
                gm_status st = gm_fail(err, GM_ERR_VALUE, "%s is being written by another "
                                       "process (%s): two processes would write one file; "
                                       S_ADVICE, path, who.data);
                gm_buf_free(&who);
                free(cpath);
                return st;
            }
            close(fd);   /* no locks here: no claim */
            fd = -1;
            break;
        }
        /* the name still leads to the file locked (a holder removes it
         * when it lets go): else take the new one */
        if (stat(cpath, &named) == 0 && named.st_dev == held.st_dev &&
            named.st_ino == held.st_ino)
            break;
        close(fd);
        fd = -1;
    }
    if (fd < 0) {
        free(cpath);
        return GM_OK;
    }

    long long rank = 0;
    gm_status rst = GM_OK;
    gm_error rerr;
    bool have_rank = gm_rank_from_env(&rank, NULL, &rst, &rerr) && rst == GM_OK;
    char *job = gm_claim_job_key();
    S_holder h;
    S_read_holder(fd, &h);
    if (job && h.job[0] && strcmp(h.job, job) == 0 && have_rank && h.has_rank &&
        h.rank != rank) {
        gm_buf who = GM_BUF_INIT;
        S_holder_text(&who, &h);
        gm_status st = gm_fail(err, GM_ERR_VALUE, "%s was claimed by another process of this "
                               "job (%s; job %s): two processes would write one file; "
                               S_ADVICE, path, who.data, job);
        gm_buf_free(&who);
        close(fd);
        free(job);
        free(cpath);
        return st;
    }

    /* the record of this holder (a descriptor opened read-only keeps the
     * old one: the lock is what counts) */
    gm_buf rec = GM_BUF_INIT;
    char *host = gm_host_short();
    gm_buf_printf(&rec, "gpumem-report output claim\npid %lld\nhost ", (long long)getpid());
    S_put_plain(&rec, host, 64);
    gm_buf_putc(&rec, '\n');
    if (have_rank)
        gm_buf_printf(&rec, "rank %lld\n", rank);
    if (job)
        gm_buf_printf(&rec, "job %s\n", job);
    if (ftruncate(fd, 0) == 0)
        (void)gm_fd_write_all(fd, cpath, rec.data, rec.len, NULL);
    gm_buf_free(&rec);
    free(host);

    c->fd = fd;
    c->path = cpath;
    c->keep = job && have_rank;
    c->cleanup = c->keep ? -1 : gm_cleanup_add_path(cpath, false);
    free(job);
    return GM_OK;
}

void gm_claim_release(gm_claim *c)
{
    if (c->fd >= 0) {
        /* removed while still locked: a process that opened it meanwhile
         * finds the name gone and starts afresh */
        if (!c->keep && c->path)
            (void)unlink(c->path);
        close(c->fd);
    }
    gm_cleanup_remove(c->cleanup);
    free(c->path);
    *c = (gm_claim)GM_CLAIM_INIT;
}

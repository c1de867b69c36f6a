/* test_helpers.c — the helpers of tests/helpers.h.  Linked into the one test
 * binary with the test files; it holds no Test() of its own. */
#include "helpers.h"

#include "../core/buf.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ---- places ---------------------------------------------------------------- */

const char *gmt_bin(void)
{
    const char *b = getenv("GM_TEST_BIN");
    return b && *b ? b : "build/gpumem-report";
}

const char *gmt_srcdir(void)
{
    const char *s = getenv("GM_SRCDIR");
    return s && *s ? s : ".";
}

char *gmt_join(const char *dir, const char *name)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "%s/%s", dir, name);
    return gm_buf_detach(&b);
}

char *gmt_src(const char *rel)
{
    return gmt_join(gmt_srcdir(), rel);
}

char *gmt_fixture(const char *name)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "%s/tests/fixtures/%s", gmt_srcdir(), name);
    return gm_buf_detach(&b);
}

/* ---- files ----------------------------------------------------------------- */

char *gmt_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, ""); /* an empty file gives "", not NULL */
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        gm_buf_put(&b, chunk, n);
    fclose(f);
    return gm_buf_detach(&b);
}

char *gmt_text(const char *path)
{
    char *t = gmt_slurp(path);
    cr_assert_not_null(t, "cannot open %s: %s", path, strerror(errno));
    return t;
}

bool gmt_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

void gmt_load_fixture(const char *name, gm_results *r)
{
    char *p = gmt_fixture(name);
    gm_error e = {0};
    gm_status st = gm_results_read_file(p, r, &e);
    cr_assert_eq(st, GM_OK, "%s: %s", p, e.message);
    free(p);
}

void gmt_golden(const char *name, const char *got)
{
    gm_buf rel = GM_BUF_INIT;
    gm_buf_printf(&rel, "tests/golden/%s", name);
    char *path = gmt_src(rel.data);
    gm_buf_free(&rel);
    const char *update = getenv("GM_UPDATE_GOLDEN");
    if (update && strcmp(update, "1") == 0) {
        FILE *f = fopen(path, "wb");
        cr_assert_not_null(f, "cannot write %s: %s", path, strerror(errno));
        fputs(got, f);
        cr_assert_eq(fclose(f), 0, "cannot write %s: %s", path, strerror(errno));
    }
    char *want = gmt_slurp(path);
    cr_assert_not_null(want, "%s missing: GM_UPDATE_GOLDEN=1 make test creates it", path);
    if (strcmp(got, want) != 0) {
        size_t line = 1, i = 0;
        while (got[i] && got[i] == want[i]) {
            if (got[i] == '\n')
                line++;
            i++;
        }
        size_t from = i > 200 ? i - 200 : 0;
        cr_assert_fail("%s differs from the output at line %zu (byte %zu):\n"
                       "--- golden ...%.400s\n--- output ...%.400s\n"
                       "(GM_UPDATE_GOLDEN=1 make test rewrites it; review the diff)",
                       path, line, i, want + from, got + from);
    }
    free(want);
    free(path);
}

/* ---- directories ----------------------------------------------------------- */

void gmt_deadline(unsigned seconds)
{
    signal(SIGALRM, SIG_DFL);
    alarm(seconds);
}

char *gmt_tmpdir(const char *tag)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "/tmp/gm-%s-XXXXXX", tag);
    char *d = gm_buf_detach(&b);
    cr_assert_not_null(mkdtemp(d), "mkdtemp %s: %s", d, strerror(errno));
    return d;
}

bool gmt_rmrf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT;
    if (!S_ISDIR(st.st_mode))
        return unlink(path) == 0;
    DIR *d = opendir(path);
    if (d) {
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *p = gmt_join(path, e->d_name);
            gmt_rmrf(p);
            free(p);
        }
        closedir(d);
    }
    return rmdir(path) == 0;
}

int gmt_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot open %s: %s", dir, strerror(errno));
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* ---- text ------------------------------------------------------------------ */

size_t gmt_occurrences(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* ---- child processes ------------------------------------------------------- */

/* An output file for the child: path created or truncated, or /dev/null. */
static int S_open_out(const char *path)
{
    const char *p = path ? path : "/dev/null";
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert_geq(fd, 0, "cannot open %s: %s", p, strerror(errno));
    return fd;
}

/* Run the child and wait for it; the raw wait status (checked by the callers,
 * after they have cleaned up). */
static int S_spawn(char *const *argv, const char *const *env, const char *out_path,
                   const char *err_path)
{
    /* the child's environment: ours, less and plus the changes */
    size_t n = 0;
    while (environ[n])
        n++;
    size_t m = 0;
    while (env && env[m])
        m++;
    char **envp = gm_xcalloc(n + m + 1, sizeof *envp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool drop = false;
        for (size_t j = 0; j < m && !drop; j++) {
            size_t len = strcspn(env[j], "=");
            drop = strncmp(environ[i], env[j], len) == 0 && environ[i][len] == '=';
        }
        if (!drop)
            envp[k++] = environ[i];
    }
    for (size_t j = 0; j < m; j++)
        if (strchr(env[j], '='))
            envp[k++] = (char *)env[j];
    envp[k] = NULL;

    int ofd = S_open_out(out_path), efd = S_open_out(err_path);
    pid_t pid = fork();
    cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(ofd, 1);
        dup2(efd, 2);
        execve(argv[0], argv, envp);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    close(ofd);
    close(efd);
    free(envp);
    return st;
}

static int S_exit_status(const char *prog, int st)
{
    cr_assert(WIFEXITED(st), "%s was killed by a signal", prog);
    cr_assert_neq(WEXITSTATUS(st), 127, "cannot run %s (set GM_TEST_BIN)", prog);
    return WEXITSTATUS(st);
}

int gmt_exec(char *const *argv, const char *const *env, const char *out_path,
             const char *err_path)
{
    return S_exit_status(argv[0], S_spawn(argv, env, out_path, err_path));
}

/* A temporary file for one captured stream, or NULL when it is not wanted. */
static char *S_capture_file(char **want)
{
    if (!want)
        return NULL;
    char *path = gm_xstrdup("/tmp/gm-test-output-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0, "mkstemp: %s", strerror(errno));
    close(fd);
    return path;
}

/* Hand the captured stream to the caller and remove its file. */
static void S_collect(char *path, char **want)
{
    if (!path)
        return;
    *want = gmt_slurp(path);
    unlink(path);
    free(path);
}

int gmt_run(char *const *argv, const char *const *env, char **out, char **err)
{
    char *opath = S_capture_file(out), *epath = S_capture_file(err);
    int st = S_spawn(argv, env, opath, epath);
    /* the files go before the status is judged (a failed assert ends the test) */
    S_collect(opath, out);
    S_collect(epath, err);
    return S_exit_status(argv[0], st);
}

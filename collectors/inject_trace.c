/* inject_trace.c — the injection library's trace mode (issue 25): when
 * GPUMEM_REPORT_TRACE_OUT is set, InitializeInjection (inject.c) hands the
 * process to the tracer instead of the profiler: no CUPTI subscriber, no
 * checkpoint, no replay; the Compute Sanitizer traces, in place, the first
 * launch of each kernel that the counter run's filter (GPUMEM_REPORT_KERNEL,
 * _LAUNCH_SKIP, _LAUNCH_COUNT) would profile, and the records go to that
 * file (collectors/trace_mode.c).
 *
 * The tracer lives in a library of its own, build/libgpumem-trace.so,
 * loaded here with dlopen: it needs the Compute Sanitizer's library
 * (libsanitizer-public.so), which this one must not need, so that the
 * counters work where the toolkit has no sanitizer.  When it cannot be
 * loaded, or cannot subscribe, the file says "@unavailable" and why, and the
 * CLI counts per line the SASS way instead.  No toolkit header here.
 */
#define _GNU_SOURCE   /* dladdr */
#include "inject.h"
#include "trace_mode.h"

#include "../core/buf.h"
#include "../core/srclines.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool gmi_trace_load(const char *path, gpumem_trace_api *api, char *msg, size_t cap)
{
    memset(api, 0, sizeof *api);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(msg, cap, "cannot load %s: %s", path, e ? e : "no reason given");
        return false;
    }
    /* POSIX's way from dlsym's void * to a function pointer */
    *(void **)&api->start = dlsym(h, GMT_SYM_START);
    *(void **)&api->label = dlsym(h, GMT_SYM_LABEL);
    *(void **)&api->finish = dlsym(h, GMT_SYM_FINISH);
    if (!api->start || !api->label || !api->finish) {
        snprintf(msg, cap, "%s has no %s, %s or %s (a library of another version?)", path,
                 GMT_SYM_START, GMT_SYM_LABEL, GMT_SYM_FINISH);
        dlclose(h);
        memset(api, 0, sizeof *api);
        return false;
    }
    return true;   /* the handle stays open for the process's life */
}

void gmi_trace_unavailable(const char *out, const char *why)
{
    gm_buf b = GM_BUF_INIT;
    gm_sl_trace_write_header(&b);
    gm_sl_trace_write_note(&b, "unavailable", why);
    int fd = open(out, O_WRONLY | O_CREAT | O_EXCL, 0600);   /* never over another's */
    if (fd >= 0) {
        ssize_t w = write(fd, b.data, b.len);
        (void)w;
        close(fd);
    }
    gm_buf_free(&b);
}

/* The trace library: GPUMEM_REPORT_TRACE_LIB, else the one beside this
 * library (the build tree, or lib/gpumem-report of an install). */
static void S_trace_lib(char *path, size_t cap)
{
    const char *env = getenv(GMI_ENV_TRACE_LIB);
    if (env && *env) {
        snprintf(path, cap, "%s", env);
        return;
    }
    static const char anchor;   /* an address inside this library */
    Dl_info di;
    const char *self = dladdr(&anchor, &di) && di.dli_fname ? di.dli_fname : "";
    const char *slash = strrchr(self, '/');
    if (slash)
        snprintf(path, cap, "%.*s/%s", (int)(slash - self), self, GMT_LIB_NAME);
    else
        snprintf(path, cap, "%s", GMT_LIB_NAME);
}

/* A whole number from the environment, or -1 when unset or not one. */
static long long S_env_ll(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return -1;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    return errno || *end || n < 0 ? -1 : n;
}

void gmi_trace_start(void)
{
    const char *out = getenv(GMI_ENV_TRACE_OUT);
    if (!out || !*out)
        return;
    char path[PATH_MAX], msg[1024];
    S_trace_lib(path, sizeof path);
    gpumem_trace_api api;
    if (!gmi_trace_load(path, &api, msg, sizeof msg)) {
        gmi_trace_unavailable(out, msg);
        return;
    }
    const char *k = getenv(GMI_ENV_KERNEL);
    gpumem_trace_opts o = {out, k && *k ? k : NULL, S_env_ll(GMI_ENV_LAUNCH_SKIP),
                           S_env_ll(GMI_ENV_LAUNCH_COUNT), false};
    if (api.start(&o, msg, sizeof msg) != 0)
        gmi_trace_unavailable(out, msg);
}

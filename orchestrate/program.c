/* program.c — the profiled program's run (program.h). */
#include "program.h"

#include "../collectors/inject.h"
#include "../core/buf.h"
#include "../core/proc.h"

#include <signal.h>
#include <stdlib.h>

/* "NAME=value" when value is given, else "NAME" (removed from the child's
 * environment: a value left there by whoever started us does not count). */
static const char *S_var(gm_buf *b, const char *name, const char *value)
{
    if (!value)
        return name;
    gm_buf_printf(b, "%s=%s", name, value);
    return b->data;
}

int gm_program_run(const gm_program_spec *s, int *sig, gm_error *err)
{
    *sig = 0;
    enum { N = 10 };
    gm_buf v[N] = {GM_BUF_INIT, GM_BUF_INIT, GM_BUF_INIT, GM_BUF_INIT, GM_BUF_INIT,
                   GM_BUF_INIT, GM_BUF_INIT, GM_BUF_INIT, GM_BUF_INIT, GM_BUF_INIT};
    char skip[32], count[32];
    snprintf(skip, sizeof skip, "%lld", s->launch_skip);
    snprintf(count, sizeof count, "%lld", s->launch_count);
    /* GPUMEM_REPORT_DEBUG passes through as the user set it. */
    const char *env[N + 1] = {
        S_var(&v[0], "CUDA_INJECTION64_PATH", s->lib),
        S_var(&v[1], "NVTX_INJECTION64_PATH", s->lib),
        S_var(&v[2], GMI_ENV_DIR, s->dir),
        S_var(&v[3], GMI_ENV_METRICS, s->metrics),
        S_var(&v[4], GMI_ENV_KERNEL, s->kernel),
        S_var(&v[5], GMI_ENV_NO_REPLAY, s->no_replay),
        S_var(&v[6], GMI_ENV_LAUNCH_SKIP, s->launch_skip >= 0 ? skip : NULL),
        S_var(&v[7], GMI_ENV_LAUNCH_COUNT, s->launch_count >= 0 ? count : NULL),
        S_var(&v[8], GMI_ENV_CACHE_FLUSH, s->no_cache_flush ? "0" : "1"),
        S_var(&v[9], GMI_ENV_CAPTURE, s->capture ? "1" : NULL),
        NULL};
    gm_proc_spec ps = {.argv = s->argv, .path = s->prog, .env = env,
                       .ignore_interrupts = true, .death_signal = SIGTERM};
    gm_proc_result r;
    gm_error perr = {GM_OK, ""};
    gm_status st = gm_proc_run(&ps, &r, NULL, &perr);
    for (int i = 0; i < N; i++)
        gm_buf_free(&v[i]);
    if (st != GM_OK) {
        gm_fail(err, GM_ERR_IO, "%s", perr.message);
        return -1;
    }
    gm_proc_result_free(&r);
    *sig = r.signal;
    return r.code;
}

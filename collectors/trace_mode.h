/* trace_mode.h — the trace mode's library (build/libgpumem-trace.so,
 * collectors/trace_mode.c) as its users load it: by dlopen, so that neither
 * the injection library nor gpumem-report needs the Compute Sanitizer's
 * library to start where the toolkit has none (issue 25).  Plain C, no
 * toolkit header.
 *
 * Two users:
 *   - the injection library's trace mode (collectors/inject_trace.c): the
 *     CLI runs a program once more with GPUMEM_REPORT_TRACE_OUT set, and
 *     the library traces the first launch of each kernel that the same
 *     --kernel / --launch-skip / --launch-count filter would profile;
 *   - `gpumem-report trace-child` (cli/cmd_trace.c): one process for the
 *     suite's chosen cases, each launch made under a label.
 * Both get the file described in core/srclines.h ("the tracer's records"). */
#ifndef GM_TRACE_MODE_H
#define GM_TRACE_MODE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GMT_LIB_NAME "libgpumem-trace.so"

typedef struct {
    const char *out;           /* the records file: created now, each traced launch
                                  appended when it has been read back, the totals at
                                  the end */
    const char *kernel_regex;  /* as --kernel; NULL: every kernel */
    long long skip, count;     /* as --launch-skip, --launch-count; -1: not given */
    bool labelled;             /* trace only launches made under a label (gpumem_trace_label) */
} gpumem_trace_opts;

/* Subscribe to the Compute Sanitizer (before the process's first CUDA call,
 * or inside cuInit) and arm.  0, or -1 with msg filled: nothing is traced. */
typedef int (*gpumem_trace_start_fn)(const gpumem_trace_opts *o, char *msg, size_t cap);
/* Labelled mode: the next launch of a function that kernel names
 * (gm_sl_symbol_is) is traced and written under label; NULL: none. */
typedef void (*gpumem_trace_label_fn)(const char *label, const char *kernel);
/* Write the totals and let go of the tracer (also done at exit); 0, or -1
 * when the file could not be written. */
typedef int (*gpumem_trace_finish_fn)(void);

#define GMT_SYM_START "gpumem_trace_start"
#define GMT_SYM_LABEL "gpumem_trace_label"
#define GMT_SYM_FINISH "gpumem_trace_finish"

typedef struct {
    gpumem_trace_start_fn start;
    gpumem_trace_label_fn label;
    gpumem_trace_finish_fn finish;
} gpumem_trace_api;

/* Load the library at path (RTLD_NOW: its own dependencies, the Compute
 * Sanitizer's library among them, resolved now) and find its entry points
 * (collectors/inject_trace.c).  false with dlerror's words in msg. */
bool gmi_trace_load(const char *path, gpumem_trace_api *api, char *msg, size_t cap);

/* Write a records file that says only that the tracer is unavailable, and
 * why (the caller falls back to the SASS path). */
void gmi_trace_unavailable(const char *out, const char *why);

#ifdef __cplusplus
}
#endif

#endif

/* gm_error.h — the error record of the CPU-side library (reports/, kernels/ runner).
 *
 * Library functions never print and never exit: they return a gm_status and,
 * when given a non-NULL gm_error, fill it with a message a user can act on
 * (which file, line and column, which field, which value).  Programs (the CLI,
 * the tests) decide what to print and which exit code to give.
 */
#ifndef GM_ERROR_H
#define GM_ERROR_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GM_OK = 0,
    GM_ERR_IO,          /* a file could not be opened, read, written or renamed */
    GM_ERR_PARSE,       /* malformed JSON (message carries line and column) */
    GM_ERR_SCHEMA,      /* wrong schema name or version */
    GM_ERR_FIELD,       /* a missing or mistyped field (message names the field) */
    GM_ERR_VALUE,       /* a field or argument with a value out of range */
    GM_ERR_NOMEM,
    GM_ERR_GNUPLOT,     /* gnuplot missing or failed */
    GM_ERR_CUDA,        /* CUDA runtime/driver failure in the GPU side */
    GM_ERR_NO_DEVICE,   /* no GPU / no driver: cannot run here */
    GM_ERR_PROFILER,    /* the collector failed; message carries its reason */
    GM_ERR_PERMISSION,  /* performance counters not permitted */
    GM_ERR_UNSUPPORTED, /* this build or device cannot do it */
    GM_ERR_VALIDATION,  /* a kernel's output differed from its CPU reference */
    GM_ERR_INCOMPLETE   /* the output was written, but parts are missing (the message
                           says which; the output itself says so too) */
} gm_status;

typedef struct {
    gm_status status;
    char message[1024];
} gm_error;

/* Set err (when non-NULL) and return status: `return gm_fail(err, GM_ERR_IO, "...", ...);` */
gm_status gm_fail(gm_error *err, gm_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Short stable name of a status ("io", "parse", ...), for messages and tests. */
const char *gm_status_name(gm_status status);

#ifdef __cplusplus
}
#endif

#endif

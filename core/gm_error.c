#include "gm_error.h"

#include <stdio.h>

gm_status gm_fail(gm_error *err, gm_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

const char *gm_status_name(gm_status status)
{
    switch (status) {
    case GM_OK: return "ok";
    case GM_ERR_IO: return "io";
    case GM_ERR_PARSE: return "parse";
    case GM_ERR_SCHEMA: return "schema";
    case GM_ERR_FIELD: return "field";
    case GM_ERR_VALUE: return "value";
    case GM_ERR_NOMEM: return "nomem";
    case GM_ERR_GNUPLOT: return "gnuplot";
    case GM_ERR_CUDA: return "cuda";
    case GM_ERR_NO_DEVICE: return "no-device";
    case GM_ERR_PROFILER: return "profiler";
    case GM_ERR_PERMISSION: return "permission";
    case GM_ERR_UNSUPPORTED: return "unsupported";
    case GM_ERR_VALIDATION: return "validation";
    case GM_ERR_INCOMPLETE: return "incomplete";
    }
    return "unknown";
}

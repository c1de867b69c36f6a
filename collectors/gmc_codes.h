/* gmc_codes.h — the collector's tables of CUDA and CUPTI constants
 * (gmc_codes.c): error codes to statuses and messages, the kernel-launch
 * callbacks.  Needs the toolkit's headers; calls nothing.
 */
#ifndef GMC_CODES_H
#define GMC_CODES_H

#include "gmc_internal.h"

#include <cupti_callbacks.h>

#include <stdbool.h>
#include <stddef.h>

/* Status for a cudaError_t / CUptiResult value (passed as int so the tests
 * need no CUDA call). */
gmc_status gmc_status_from_cuda(int cuda_error);
gmc_status gmc_status_from_cupti(int cupti_result);

/* Failure of CUDA call `expr` at file:line: maps the code to a status and
 * writes a message with the expression, the code's name and description, and
 * what to do about it where there is something to do. */
gmc_status gmc_fail_cuda(gmc_error *err, int cuda_error, const char *code_name,
                         const char *description, const char *expr, const char *file, int line);
gmc_status gmc_fail_cupti(gmc_error *err, int cupti_result, const char *description,
                          const char *expr, const char *file, int line);

/* ---- kernel launches, as CUPTI's callbacks see them ---------------------- */

typedef struct {
    CUpti_CallbackDomain domain;
    CUpti_CallbackId cbid;
} gmc_callback;

/* The API functions that launch one kernel: cuLaunchKernel and its kin
 * (Ex, Cooperative, the per-thread-stream _ptsz forms, the old cuLaunch and
 * cuLaunchGrid) in the driver domain, then cudaLaunchKernel and its kin in
 * the runtime domain.  Graph launches are not among them.  The collector and
 * the injection library both subscribe to these. */
extern const gmc_callback gmc_launch_callbacks[];
extern const size_t gmc_n_launch_callbacks;

/* Is (domain, cbid) one of gmc_launch_callbacks? */
bool gmc_is_launch_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

#endif

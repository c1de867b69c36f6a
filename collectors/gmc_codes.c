/* gmc_codes.c — the collector's tables of CUDA and CUPTI constants: error
 * codes mapped to statuses and messages, and the kernel-launch callbacks the
 * collector and the injection library subscribe to.  No CUDA or CUPTI call,
 * only the toolkit's headers (so it is built only with the toolkit; the rest
 * of the CPU side is gmc_util.c).
 */
#include "gmc_codes.h"

#include <cupti_driver_cbid.h>
#include <cupti_result.h>
#include <cupti_runtime_cbid.h>
#include <driver_types.h>

#include <stdio.h>
#include <string.h>

/* ---- error codes ---------------------------------------------------------- */

gmc_status gmc_status_from_cuda(int e)
{
    switch (e) {
    case cudaSuccess: return GMC_OK;
    case cudaErrorInsufficientDriver:
    case cudaErrorCallRequiresNewerDriver:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorStubLibrary:
        return GMC_ERR_NO_DRIVER;
    case cudaErrorNoDevice:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorDeviceUninitialized:
        return GMC_ERR_NO_DEVICE;
    case cudaErrorMemoryAllocation:
        return GMC_ERR_NOMEM;
    default:
        return GMC_ERR_CUDA;
    }
}

gmc_status gmc_status_from_cupti(int r)
{
    switch (r) {
    case CUPTI_SUCCESS: return GMC_OK;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        return GMC_ERR_PERMISSION;
    case CUPTI_ERROR_INVALID_METRIC_NAME:
        return GMC_ERR_UNKNOWN_METRIC;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
        return GMC_ERR_UNSUPPORTED_DEVICE;
    case CUPTI_ERROR_OUT_OF_MEMORY:
        return GMC_ERR_NOMEM;
    case CUPTI_ERROR_HARDWARE_BUSY:
        return GMC_ERR_BUSY;
    default:
        return GMC_ERR_CUPTI;
    }
}

gmc_status gmc_fail_cuda(gmc_error *err, int cuda_error, const char *code_name,
                         const char *description, const char *expr, const char *file, int line)
{
    gmc_status st = gmc_status_from_cuda(cuda_error);
    if (st == GMC_OK)
        st = GMC_ERR_CUDA;   /* called on failure only; never report success */
    const char *hint = "";
    if (st == GMC_ERR_NO_DRIVER)
        hint = " -- no usable NVIDIA driver: install one that supports CUDA 13 (R580 or newer)"
               " or run where a GPU is available";
    else if (st == GMC_ERR_NO_DEVICE)
        hint = " -- no usable CUDA device: check nvidia-smi and CUDA_VISIBLE_DEVICES";
    return gmc_fail(err, st, "%s:%d: %s: %s (%s, %d)%s", file, line, expr,
                    description ? description : "?", code_name ? code_name : "?", cuda_error, hint);
}

static const char *S_cupti_code_name(int r)
{
    switch (r) {
    case CUPTI_ERROR_INVALID_PARAMETER: return "CUPTI_ERROR_INVALID_PARAMETER";
    case CUPTI_ERROR_INVALID_DEVICE: return "CUPTI_ERROR_INVALID_DEVICE";
    case CUPTI_ERROR_INVALID_CONTEXT: return "CUPTI_ERROR_INVALID_CONTEXT";
    case CUPTI_ERROR_INVALID_OPERATION: return "CUPTI_ERROR_INVALID_OPERATION";
    case CUPTI_ERROR_OUT_OF_MEMORY: return "CUPTI_ERROR_OUT_OF_MEMORY";
    case CUPTI_ERROR_NOT_INITIALIZED: return "CUPTI_ERROR_NOT_INITIALIZED";
    case CUPTI_ERROR_INVALID_METRIC_NAME: return "CUPTI_ERROR_INVALID_METRIC_NAME";
    case CUPTI_ERROR_NOT_SUPPORTED: return "CUPTI_ERROR_NOT_SUPPORTED";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED: return "CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: return "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: return "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES: return "CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES";
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED: return "CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED";
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED: return "CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED: return "CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED: return "CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED: return "CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_INVALID_CHIP_NAME: return "CUPTI_ERROR_INVALID_CHIP_NAME";
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED: return "CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED";
    case CUPTI_ERROR_UNKNOWN: return "CUPTI_ERROR_UNKNOWN";
    default: return "CUPTI error";
    }
}

gmc_status gmc_fail_cupti(gmc_error *err, int cupti_result, const char *description,
                          const char *expr, const char *file, int line)
{
    gmc_status st = gmc_status_from_cupti(cupti_result);
    if (st == GMC_OK)
        st = GMC_ERR_CUPTI;
    const char *hint = "";
    if (st == GMC_ERR_PERMISSION)
        hint = gmc_permission_help;
    else if (st == GMC_ERR_UNSUPPORTED_DEVICE)
        hint = "The CUPTI profiler does not support this device or configuration "
               "(vGPU without profiling enabled, a MIG instance, a CMP board, SLI, WSL, "
               "confidential computing, or a GPU older than Volta).";
    return gmc_fail(err, st, "%s:%d: %s: %s (%s, %d)%s%s", file, line, expr,
                    description ? description : "?", S_cupti_code_name(cupti_result),
                    cupti_result, *hint ? ". " : "", hint);
}

/* ---- kernel launches ------------------------------------------------------ */

const gmc_callback gmc_launch_callbacks[] = {
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunch},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000},
};
const size_t gmc_n_launch_callbacks = sizeof gmc_launch_callbacks / sizeof gmc_launch_callbacks[0];

bool gmc_is_launch_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    for (size_t i = 0; i < gmc_n_launch_callbacks; i++)
        if (gmc_launch_callbacks[i].domain == domain && gmc_launch_callbacks[i].cbid == cbid)
            return true;
    return false;
}

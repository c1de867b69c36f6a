/* inject_launch.c — one kernel launch of the program: described from the
 * driver's launch callback, made again through the same entry point, and
 * copied (arguments, parameter buffer, launch configuration) so that a batch
 * can make it again after the program's own call has returned.
 */
#include "inject_internal.h"

#include "../core/buf.h"

#include <cuda.h>
#include <cupti_driver_cbid.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The parameters the driver callbacks carry for the three launch entry points,
 * as generated_cuda_meta.h declares them (cuLaunchKernel_params and the
 * others; that header does not compile as C11).  The _ptsz forms are the same. */
typedef struct {
    CUfunction f;
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    CUstream hStream;
    void **kernelParams;
    void **extra;
} cuLaunchKernel_params;
typedef struct {
    const CUlaunchConfig *config;
    CUfunction f;
    void **kernelParams;
    void **extra;
} cuLaunchKernelEx_params;
typedef struct {
    CUfunction f;
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    CUstream hStream;
    void **kernelParams;
} cuLaunchCooperativeKernel_params;

/* ---- one launch -------------------------------------------------------------------------- */

CUresult gmi_relaunch(const gmi_launch *L)
{
    switch (L->cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
        return cuLaunchKernel(L->f, L->grid[0], L->grid[1], L->grid[2], L->block[0], L->block[1],
                              L->block[2], L->shm, L->stream, L->params, L->extra);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        return cuLaunchKernel_ptsz(L->f, L->grid[0], L->grid[1], L->grid[2], L->block[0],
                                   L->block[1], L->block[2], L->shm, L->stream, L->params,
                                   L->extra);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
        return cuLaunchKernelEx(L->config, L->f, L->params, L->extra);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        return cuLaunchKernelEx_ptsz(L->config, L->f, L->params, L->extra);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
        return cuLaunchCooperativeKernel(L->f, L->grid[0], L->grid[1], L->grid[2], L->block[0],
                                         L->block[1], L->block[2], L->shm, L->stream, L->params);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        return cuLaunchCooperativeKernel_ptsz(L->f, L->grid[0], L->grid[1], L->grid[2],
                                              L->block[0], L->block[1], L->block[2], L->shm,
                                              L->stream, L->params);
    default:
        return CUDA_ERROR_NOT_SUPPORTED;
    }
}

/* The launch described by a driver callback; false for entry points we cannot replay. */
bool gmi_describe(CUpti_CallbackId cbid, const void *p, gmi_launch *L)
{
    memset(L, 0, sizeof *L);
    L->cbid = cbid;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        const cuLaunchKernel_params *a = p;   /* the _ptsz struct is the same, field for field */
        L->f = a->f;
        L->grid[0] = a->gridDimX, L->grid[1] = a->gridDimY, L->grid[2] = a->gridDimZ;
        L->block[0] = a->blockDimX, L->block[1] = a->blockDimY, L->block[2] = a->blockDimZ;
        L->shm = a->sharedMemBytes;
        L->stream = a->hStream;
        L->params = a->kernelParams;
        L->extra = a->extra;
        L->ptsz = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz;
        return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const cuLaunchKernelEx_params *a = p;
        if (!a->config)
            return false;
        L->config = a->config;
        L->f = a->f;
        L->grid[0] = a->config->gridDimX, L->grid[1] = a->config->gridDimY;
        L->grid[2] = a->config->gridDimZ;
        L->block[0] = a->config->blockDimX, L->block[1] = a->config->blockDimY;
        L->block[2] = a->config->blockDimZ;
        L->shm = a->config->sharedMemBytes;
        L->stream = a->config->hStream;
        L->params = a->kernelParams;
        L->extra = a->extra;
        L->ptsz = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
        return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        const cuLaunchCooperativeKernel_params *a = p;
        L->f = a->f;
        L->grid[0] = a->gridDimX, L->grid[1] = a->gridDimY, L->grid[2] = a->gridDimZ;
        L->block[0] = a->blockDimX, L->block[1] = a->blockDimY, L->block[2] = a->blockDimZ;
        L->shm = a->sharedMemBytes;
        L->stream = a->hStream;
        L->params = a->kernelParams;
        L->ptsz = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
        return true;
    }
    default:
        return false;
    }
}

/* ---- a copy for the batch (inject.h, "batches") ----------------------------------------- */

void gmi_pending_free(struct gmi_pending *p)
{
    free(p->args);
    free(p->argv);
    free(p->extra_buf);
    free(p->attrs);
    free(p->symbol);
    free(p->range);
    memset(p, 0, sizeof *p);
}

/* The kernel's parameters (kernelParams), by the sizes and offsets the driver
 * gives, into p->args; false when they cannot be copied. */
static bool S_copy_params(struct gmi_pending *p, const gmi_launch *L)
{
    /* The handle a launch carries is a CUfunction or, from the runtime, a
     * CUkernel; whichever query answers for parameter 0 is used.  A kernel
     * of no parameters answers neither and is profiled on its own. */
    size_t n = 0, end = 0, off, size;
    CUresult rf = cuFuncGetParamInfo(L->f, 0, &off, &size), r = rf;
    bool by_kernel = false;
    if (rf != CUDA_SUCCESS) {
        CUresult rk = cuKernelGetParamInfo((CUkernel)L->f, 0, &off, &size);
        if (rk != CUDA_SUCCESS) {
            const char *a = NULL, *b = NULL;
            (void)cuGetErrorName(rf, &a);
            (void)cuGetErrorName(rk, &b);
            snprintf(gmi.copy_fail, sizeof gmi.copy_fail, "parameter sizes unknown "
                     "(cuFuncGetParamInfo %s, cuKernelGetParamInfo %s)", a ? a : "?",
                     b ? b : "?");
            return false;
        }
        by_kernel = true;
    }
    do {
        if (off + size > end)
            end = off + size;
        n++;
        r = by_kernel ? cuKernelGetParamInfo((CUkernel)L->f, n, &off, &size)
                      : cuFuncGetParamInfo(L->f, n, &off, &size);
    } while (r == CUDA_SUCCESS);
    if (r != CUDA_ERROR_INVALID_VALUE) {
        const char *a = NULL;
        (void)cuGetErrorName(r, &a);
        snprintf(gmi.copy_fail, sizeof gmi.copy_fail, "parameter %zu's size unknown (%s)", n,
                 a ? a : "?");
        return false;
    }
    p->args = gm_xmalloc(end ? end : 1);
    p->args_size = end;
    p->argv = gm_xcalloc(n, sizeof *p->argv);
    for (size_t i = 0; i < n; i++) {
        r = by_kernel ? cuKernelGetParamInfo((CUkernel)L->f, i, &off, &size)
                      : cuFuncGetParamInfo(L->f, i, &off, &size);
        if (r != CUDA_SUCCESS || !L->params[i])
            return false;
        memcpy(p->args + off, L->params[i], size);
        p->argv[i] = p->args + off;
    }
    p->L.params = p->argv;
    return true;
}

/* `extra`: a parameter buffer (CU_LAUNCH_PARAM_BUFFER_POINTER and
 * CU_LAUNCH_PARAM_BUFFER_SIZE) is copied; false for any other option. */
static bool S_copy_extra(struct gmi_pending *p, const gmi_launch *L)
{
    void *buf = NULL;
    size_t *size = NULL;
    for (size_t k = 0; L->extra[k] != CU_LAUNCH_PARAM_END; k += 2) {
        if (L->extra[k] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            buf = L->extra[k + 1];
        else if (L->extra[k] == CU_LAUNCH_PARAM_BUFFER_SIZE)
            size = L->extra[k + 1];
        else {
            snprintf(gmi.copy_fail, sizeof gmi.copy_fail, "launch options in `extra` other "
                     "than a parameter buffer");
            return false;
        }
    }
    if (buf && size) {
        p->extra_size = *size;
        p->extra_buf = gm_xmalloc(p->extra_size ? p->extra_size : 1);
        memcpy(p->extra_buf, buf, p->extra_size);
        p->extra[0] = CU_LAUNCH_PARAM_BUFFER_POINTER;
        p->extra[1] = p->extra_buf;
        p->extra[2] = CU_LAUNCH_PARAM_BUFFER_SIZE;
        p->extra[3] = &p->extra_size;
        p->extra[4] = CU_LAUNCH_PARAM_END;
        p->L.extra = p->extra;
    } else if (buf || size) {
        return false;
    }
    return true;
}

/* cuLaunchKernelEx's configuration and its attributes, without the stream. */
static void S_copy_config(struct gmi_pending *p, const gmi_launch *L)
{
    p->config = *L->config;
    p->config.hStream = NULL;
    if (L->config->numAttrs) {
        p->attrs = gm_xcalloc(L->config->numAttrs, sizeof *p->attrs);
        memcpy(p->attrs, L->config->attrs, L->config->numAttrs * sizeof *p->attrs);
    }
    p->config.attrs = p->attrs;
    p->L.config = &p->config;
}

/* Copy the launch L into p; false when its arguments cannot be copied (the
 * driver will not say their sizes, or `extra` holds something we do not
 * know), and the launch is then profiled on its own. */
bool gmi_pending_copy(struct gmi_pending *p, const gmi_launch *L)
{
    memset(p, 0, sizeof *p);
    p->L = *L;
    p->L.params = NULL;
    p->L.extra = NULL;
    p->L.config = NULL;
    /* Replays go to the legacy default stream, in the order the program made
     * them, behind the L2 flush (the order of the program's streams is one
     * its dependencies allow: each waits only on work enqueued before it). */
    p->L.stream = NULL;
    p->L.ptsz = false;
    switch (L->cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        p->L.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        p->L.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx;
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        p->L.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel;
        break;
    default:
        break;
    }
    if ((L->params && !S_copy_params(p, L)) || (L->extra && !S_copy_extra(p, L))) {
        gmi_pending_free(p);
        return false;
    }
    if (L->config)
        S_copy_config(p, L);
    return true;
}

void gmi_launch_shape(const gmi_launch *L, gm_launch *out)
{
    memcpy(out->grid, L->grid, sizeof L->grid);
    memcpy(out->block, L->block, sizeof L->block);
    /* a runtime launch hands the driver a CUkernel as its CUfunction, which
     * the function queries refuse: ask its function in this context */
    CUfunction f = L->f, g;
    int stat = 0, regs = -1;
    if (cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f) != CUDA_SUCCESS) {
        regs = -1;
        if (cuKernelGetFunction(&g, (CUkernel)(void *)L->f) == CUDA_SUCCESS &&
            cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, g) == CUDA_SUCCESS)
            f = g;
        else
            regs = -1;
    }
    if (cuFuncGetAttribute(&stat, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f) != CUDA_SUCCESS)
        stat = 0;
    out->shared_bytes = (long long)L->shm + stat;
    out->registers = regs;
    /* the blocks of this shape an SM holds at once, in warps, against the most
     * warps it holds: Nsight Compute's theoretical occupancy */
    out->theoretical_occupancy = 0;
    int threads = (int)(L->block[0] * L->block[1] * L->block[2]), blocks = 0, most = 0;
    CUdevice dev;
    if (threads > 0 &&
        cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, threads, L->shm) ==
            CUDA_SUCCESS &&
        cuCtxGetDevice(&dev) == CUDA_SUCCESS &&
        cuDeviceGetAttribute(&most, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev) ==
            CUDA_SUCCESS &&
        blocks > 0 && most >= 32)
        out->theoretical_occupancy = 100.0 * blocks * ((threads + 31) / 32) / (most / 32);
}

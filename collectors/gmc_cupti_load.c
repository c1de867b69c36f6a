/* gmc_cupti_load.c — the CUPTI functions the collector calls, forwarded to
 * libcupti opened with dlopen() on first use (gmc_cupti_load.h says why).
 *
 * Each function below has the signature of its declaration in the CUPTI
 * headers (the compiler checks them against each other) and calls the
 * library's own, resolved once by dlsym().  Adding a CUPTI call to the
 * collector means adding its line to S_FUNCS: the link fails until then,
 * since the program does not link libcupti.
 */
#include "gmc_cupti_load.h"
#include "gmc_cupti_host.h"   /* the profiler host API in C (its header is C++) */

#include <cuda.h>
/* cupti_activity.h (cuptiGetDeviceId) has an enumerator beyond int */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <cupti_activity.h>
#pragma GCC diagnostic pop
#include <cupti_callbacks.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>
#include <cupti_version.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef GMC_CUPTI_SONAME
#define GMC_CUPTI_SONAME "libcupti.so.13"
#endif
#ifndef GMC_CUPTI_DIR
#define GMC_CUPTI_DIR "/usr/local/cuda/lib64"
#endif

/* X(name, parameter list, argument list): every CUPTI function the program
 * calls (collectors/gmc_cupti.c, gmc_sass.c).  Most take one parameter
 * structure; P1 spells those. */
#define P1(name, type) X(name, (type *pParams), (pParams))
#define S_FUNCS                                                                              \
    X(cuptiGetResultString, (CUptiResult result, const char **str), (result, str))            \
    S_FORWARDED
#define S_FORWARDED                                                                          \
    X(cuptiGetVersion, (uint32_t *version), (version))                                        \
    X(cuptiGetDeviceId, (CUcontext context, uint32_t *deviceId), (context, deviceId))         \
    X(cuptiSubscribe,                                                                         \
      (CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback, void *userdata),      \
      (subscriber, callback, userdata))                                                       \
    X(cuptiUnsubscribe, (CUpti_SubscriberHandle subscriber), (subscriber))                    \
    X(cuptiEnableCallback,                                                                    \
      (uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,       \
       CUpti_CallbackId cbid),                                                                \
      (enable, subscriber, domain, cbid))                                                     \
    P1(cuptiDeviceGetChipName, CUpti_Device_GetChipName_Params)                               \
    P1(cuptiGetCubinCrc, CUpti_GetCubinCrcParams)                                             \
    P1(cuptiGetSassToSourceCorrelation, CUpti_GetSassToSourceCorrelationParams)               \
    P1(cuptiProfilerInitialize, CUpti_Profiler_Initialize_Params)                             \
    P1(cuptiProfilerDeviceSupported, CUpti_Profiler_DeviceSupported_Params)                   \
    P1(cuptiProfilerGetCounterAvailability, CUpti_Profiler_GetCounterAvailability_Params)     \
    P1(cuptiProfilerHostInitialize, gmc_host_initialize_params)                    \
    P1(cuptiProfilerHostDeinitialize, gmc_host_deinitialize_params)                \
    P1(cuptiProfilerHostConfigAddMetrics, gmc_host_config_add_metrics_params)        \
    P1(cuptiProfilerHostEvaluateToGpuValues, gmc_host_evaluate_params)  \
    P1(cuptiProfilerHostGetBaseMetrics, gmc_host_get_base_metrics_params)            \
    P1(cuptiProfilerHostGetConfigImage, gmc_host_get_config_image_params)            \
    P1(cuptiProfilerHostGetConfigImageSize, gmc_host_get_config_image_size_params)    \
    P1(cuptiProfilerHostGetMetricProperties, gmc_host_get_metric_properties_params)  \
    P1(cuptiProfilerHostGetNumOfPasses, gmc_host_get_num_passes_params)            \
    P1(cuptiRangeProfilerCounterDataImageInitialize,                                          \
       CUpti_RangeProfiler_CounterDataImage_Initialize_Params)                                \
    P1(cuptiRangeProfilerDecodeData, CUpti_RangeProfiler_DecodeData_Params)                   \
    P1(cuptiRangeProfilerDisable, CUpti_RangeProfiler_Disable_Params)                         \
    P1(cuptiRangeProfilerEnable, CUpti_RangeProfiler_Enable_Params)                           \
    P1(cuptiRangeProfilerGetCounterDataInfo, CUpti_RangeProfiler_GetCounterDataInfo_Params)   \
    P1(cuptiRangeProfilerGetCounterDataSize, CUpti_RangeProfiler_GetCounterDataSize_Params)   \
    P1(cuptiRangeProfilerSetConfig, CUpti_RangeProfiler_SetConfig_Params)                     \
    P1(cuptiRangeProfilerStart, CUpti_RangeProfiler_Start_Params)                             \
    P1(cuptiRangeProfilerStop, CUpti_RangeProfiler_Stop_Params)                               \
    P1(cuptiSassMetricsDisable, CUpti_SassMetricsDisable_Params)                              \
    P1(cuptiSassMetricsEnable, CUpti_SassMetricsEnable_Params)                                \
    P1(cuptiSassMetricsFlushData, CUpti_SassMetricsFlushData_Params)                          \
    P1(cuptiSassMetricsGetDataProperties, CUpti_SassMetricsGetDataProperties_Params)          \
    P1(cuptiSassMetricsGetProperties, CUpti_SassMetrics_GetProperties_Params)                 \
    P1(cuptiSassMetricsSetConfig, CUpti_SassMetricsSetConfig_Params)                          \
    P1(cuptiSassMetricsUnsetConfig, CUpti_SassMetricsUnsetConfig_Params)

/* The library's functions, filled once by S_open. */
#define X(name, params, args) CUptiResult (*name) params;
static struct {
    S_FUNCS
} S_fn;
#undef X

static pthread_once_t S_once = PTHREAD_ONCE_INIT;
static bool S_loaded;
static char S_why[768];

/* dlsym's answer into a function pointer of any type (a data pointer and a
 * function pointer have the same size on every POSIX system). */
static bool S_resolve(void *lib, const char *name, void *slot, size_t size)
{
    dlerror();
    void *p = dlsym(lib, name);
    if (!p || size != sizeof p) {
        const char *e = dlerror();
        snprintf(S_why, sizeof S_why, "%s has no %s (%s): not the CUPTI of CUDA 13",
                 GMC_CUPTI_SONAME, name, e ? e : "no such symbol");
        return false;
    }
    memcpy(slot, &p, size);
    return true;
}

static void S_open(void)
{
    char paths[3][512];
    size_t n = 0;
    snprintf(paths[n++], sizeof paths[0], "%s", GMC_CUPTI_SONAME);
    const char *home = getenv("CUDA_HOME");
    if (home && *home)
        snprintf(paths[n++], sizeof paths[0], "%s/lib64/%s", home, GMC_CUPTI_SONAME);
    snprintf(paths[n++], sizeof paths[0], "%s/%s", GMC_CUPTI_DIR, GMC_CUPTI_SONAME);
    void *lib = NULL;
    for (size_t i = 0; i < n && !lib; i++) {
        lib = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib && i == 0) {
            const char *e = dlerror();
            snprintf(S_why, sizeof S_why, "%s", e ? e : "dlopen failed");
        }
    }
    if (!lib) {
        /* where the dynamic linker looks, then the places tried by path */
        size_t at = strlen(S_why);
        for (size_t i = 1; i < n && at < sizeof S_why; i++)
            at += (size_t)snprintf(S_why + at, sizeof S_why - at, "%s %s", i == 1 ? "; nor" : ",",
                                   paths[i]);
        return;
    }
    bool ok = true;
#define X(name, params, args) ok = ok && S_resolve(lib, #name, &S_fn.name, sizeof S_fn.name);
    S_FUNCS
#undef X
    if (!ok) {
        dlclose(lib);
        memset(&S_fn, 0, sizeof S_fn);
        return;
    }
    S_loaded = true;   /* the library stays loaded until the process ends */
}

bool gmc_cupti_load(char *why, size_t n)
{
    pthread_once(&S_once, S_open);
    if (!S_loaded && why && n)
        snprintf(why, n, "%s", S_why);
    return S_loaded;
}

const char *gmc_cupti_soname(void)
{
    return GMC_CUPTI_SONAME;
}

/* The forwarding functions.  cuptiGetResultString answers for a library that
 * could not be loaded, so that messages built from it say why. */
CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char **str)
{
    if (!gmc_cupti_load(NULL, 0)) {
        if (str)
            *str = S_why;
        return CUPTI_SUCCESS;
    }
    return S_fn.cuptiGetResultString(result, str);
}

#define X(name, params, args)                                                                \
    CUptiResult CUPTIAPI name params                                                         \
    {                                                                                        \
        if (!gmc_cupti_load(NULL, 0))                                                        \
            return CUPTI_ERROR_NOT_INITIALIZED;                                              \
        return S_fn.name args;                                                               \
    }
S_FORWARDED
#undef X

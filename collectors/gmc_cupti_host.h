/* gmc_cupti_host.h — C declarations of the parts of CUPTI's profiler *host*
 * API (cupti_profiler_host.h) that the collector calls.
 *
 * Why not include the real header: in CUDA 13.0 it does `#include <string>`,
 * a C++ header, so a C11 translation unit cannot include it.  These are the
 * same structs under our own names, field for field, and the same functions
 * (the symbols are C functions in libcupti).  tests/gpu/collector_vs_ncu.cu is
 * C++, includes the real header beside this one and static_asserts every
 * struct's size and every field's offset; `make` builds it on CI, so a CUPTI
 * release that changes a layout breaks the build instead of the numbers.
 * Define GMC_CUPTI_HOST_NO_FUNCS to get the structs alone (for that check).
 */
#ifndef GMC_CUPTI_HOST_H
#define GMC_CUPTI_HOST_H

#include <cupti_result.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GMC_STRUCT_SIZE(type, last) (offsetof(type, last) + sizeof(((type *)0)->last))

/* CUpti_MetricType and CUpti_ProfilerType: plain ints in the structs below,
 * since a C enum and the C++ enum both have the size of int here (checked). */
enum {
    GMC_METRIC_TYPE_COUNTER = 0,
    GMC_METRIC_TYPE_RATIO = 1,
    GMC_METRIC_TYPE_THROUGHPUT = 2,
    GMC_METRIC_TYPE_COUNT = 3
};
enum { GMC_PROFILER_TYPE_RANGE_PROFILER = 0 };

typedef struct CUpti_Profiler_Host_Object CUpti_Profiler_Host_Object;

typedef struct {
    size_t structSize;
    void *pPriv;
    int profilerType;
    const char *pChipName;
    const uint8_t *pCounterAvailabilityImage;
    CUpti_Profiler_Host_Object *pHostObject;              /* out */
} gmc_host_initialize_params;

typedef struct {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
} gmc_host_deinitialize_params;

typedef struct {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    int metricType;
    const char **ppMetricNames;                           /* out */
    size_t numMetrics;                                    /* out */
} gmc_host_get_base_metrics_params;

typedef struct {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    const char *pMetricName;
    const char *pDescription;                             /* out */
    const char *pHwUnit;                                  /* out */
    const char *pDimUnit;                                 /* out */
    int metricType;                                       /* out */
} gmc_host_get_metric_properties_params;

typedef struct {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    const uint8_t *pCounterDataImage;
    size_t counterDataImageSize;
    size_t rangeIndex;
    const char **ppMetricNames;
    size_t numMetrics;
    double *pMetricValues;                                /* out, numMetrics */
} gmc_host_evaluate_params;

typedef struct {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    const char **ppMetricNames;
    size_t numMetrics;
} gmc_host_config_add_metrics_params;

typedef struct {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    size_t configImageSize;                               /* out */
} gmc_host_get_config_image_size_params;

typedef struct {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    size_t configImageSize;
    uint8_t *pConfigImage;                                /* out */
} gmc_host_get_config_image_params;

typedef struct {
    size_t structSize;
    void *pPriv;
    size_t configImageSize;
    uint8_t *pConfigImage;
    size_t numOfPasses;                                   /* out */
} gmc_host_get_num_passes_params;

#define GMC_HOST_INITIALIZE_SIZE GMC_STRUCT_SIZE(gmc_host_initialize_params, pHostObject)
#define GMC_HOST_DEINITIALIZE_SIZE GMC_STRUCT_SIZE(gmc_host_deinitialize_params, pHostObject)
#define GMC_HOST_GET_BASE_METRICS_SIZE GMC_STRUCT_SIZE(gmc_host_get_base_metrics_params, numMetrics)
#define GMC_HOST_GET_METRIC_PROPERTIES_SIZE \
    GMC_STRUCT_SIZE(gmc_host_get_metric_properties_params, metricType)
#define GMC_HOST_EVALUATE_SIZE GMC_STRUCT_SIZE(gmc_host_evaluate_params, pMetricValues)
#define GMC_HOST_CONFIG_ADD_METRICS_SIZE \
    GMC_STRUCT_SIZE(gmc_host_config_add_metrics_params, numMetrics)
#define GMC_HOST_GET_CONFIG_IMAGE_SIZE_SIZE \
    GMC_STRUCT_SIZE(gmc_host_get_config_image_size_params, configImageSize)
#define GMC_HOST_GET_CONFIG_IMAGE_SIZE GMC_STRUCT_SIZE(gmc_host_get_config_image_params, pConfigImage)
#define GMC_HOST_GET_NUM_PASSES_SIZE GMC_STRUCT_SIZE(gmc_host_get_num_passes_params, numOfPasses)

#ifndef GMC_CUPTI_HOST_NO_FUNCS
CUptiResult cuptiProfilerHostInitialize(gmc_host_initialize_params *p);
CUptiResult cuptiProfilerHostDeinitialize(gmc_host_deinitialize_params *p);
CUptiResult cuptiProfilerHostGetBaseMetrics(gmc_host_get_base_metrics_params *p);
CUptiResult cuptiProfilerHostGetMetricProperties(gmc_host_get_metric_properties_params *p);
CUptiResult cuptiProfilerHostEvaluateToGpuValues(gmc_host_evaluate_params *p);
CUptiResult cuptiProfilerHostConfigAddMetrics(gmc_host_config_add_metrics_params *p);
CUptiResult cuptiProfilerHostGetConfigImageSize(gmc_host_get_config_image_size_params *p);
CUptiResult cuptiProfilerHostGetConfigImage(gmc_host_get_config_image_params *p);
CUptiResult cuptiProfilerHostGetNumOfPasses(gmc_host_get_num_passes_params *p);
#endif

#ifdef __cplusplus
}
#endif

#endif

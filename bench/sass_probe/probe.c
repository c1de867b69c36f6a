/* probe.c — what CUPTI 13's SASS metrics API really does on this device
 * (bench/sass_probe/README.md).  Not part of the tool. */
#include <cuda.h>
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <cupti_sass_metrics.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int probe_setup(void);
int probe_launch(int k);
const char *probe_kernel_name(int k);

static const char *out_dir = ".";
static FILE *LOG;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

#define CU(x) do { CUptiResult r_ = (x); if (r_ != CUPTI_SUCCESS) { const char *s_ = "?"; \
    cuptiGetResultString(r_, &s_); fprintf(LOG, "FAIL %s:%d %s -> %d %s\n", __FILE__, __LINE__, #x, (int)r_, s_); \
    fflush(LOG); return (int)r_; } } while (0)
#define CUW(x) do { CUptiResult r_ = (x); if (r_ != CUPTI_SUCCESS) { const char *s_ = "?"; \
    cuptiGetResultString(r_, &s_); fprintf(LOG, "WARN %s:%d %s -> %d %s\n", __FILE__, __LINE__, #x, (int)r_, s_); } } while (0)

typedef struct { uint64_t crc; size_t size; void *data; uint32_t module; } cubin_t;
static cubin_t cubins[64];
static int n_cubins;

static void CUPTIAPI on_cb(void *u, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *d)
{
    (void)u;
    if (dom == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
        const CUpti_ResourceData *rd = d;
        const CUpti_ModuleResourceData *m = rd->resourceDescriptor;
        if (!m || n_cubins >= 64) return;
        cubin_t *c = &cubins[n_cubins++];
        c->size = m->cubinSize;
        c->data = malloc(m->cubinSize);
        memcpy(c->data, m->pCubin, m->cubinSize);
        c->module = m->moduleId;
        CUpti_GetCubinCrcParams p = {CUpti_GetCubinCrcParamsSize, m->cubinSize, m->pCubin, 0};
        CUptiResult r = cuptiGetCubinCrc(&p);
        c->crc = r == CUPTI_SUCCESS ? p.cubinCrc : 0;
        fprintf(LOG, "module-loaded id=%u size=%zu crc=%llu (crc rc %d) t=%.3f\n", m->moduleId,
                m->cubinSize, (unsigned long long)c->crc, (int)r, now());
        char path[512];
        snprintf(path, sizeof path, "%s/cubin_%u.cubin", out_dir, m->moduleId);
        FILE *f = fopen(path, "wb");
        if (f) { fwrite(m->pCubin, 1, m->cubinSize, f); fclose(f); }
    }
}

static const char *want[] = {
    "smsp__sass_sectors_mem_global", "smsp__sass_sectors_mem_global_ideal",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "smsp__sass_inst_executed", "smsp__sass_inst_executed_op_global_ld",
    "smsp__sass_inst_executed_op_global_st", "smsp__sass_inst_executed_op_shared_ld",
    "smsp__sass_inst_executed_op_shared_st", "smsp__sass_sectors_mem_global_op_ld",
    "smsp__sass_sectors_mem_global_op_st", "smsp__sass_sectors_mem_global_op_ld_ideal",
    "smsp__sass_sectors_mem_global_op_st_ideal", "smsp__sass_thread_inst_executed",
    "smsp__sass_l1tex_tags_mem_global",
};
#define NW (sizeof want / sizeof want[0])
static uint64_t ids[NW];
static int have[NW];
static int n_cfg;
static CUcontext ctx;

static int which(uint64_t id)
{
    for (size_t i = 0; i < NW; i++)
        if (have[i] && ids[i] == id) return (int)i;
    return -1;
}

static const cubin_t *cubin_of(uint64_t crc)
{
    for (int i = 0; i < n_cubins; i++)
        if (cubins[i].crc == crc) return &cubins[i];
    return NULL;
}

/* Flush; print per-function sums; with detail, one line per record with file:line. */
static int flush(const char *tag, int detail, size_t *n_out)
{
    CUpti_SassMetricsGetDataProperties_Params gp = {CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
    gp.ctx = ctx;
    CU(cuptiSassMetricsGetDataProperties(&gp));
    fprintf(LOG, "[%s] records=%zu instances=%zu\n", tag, gp.numOfPatchedInstructionRecords, gp.numOfInstances);
    *n_out = gp.numOfPatchedInstructionRecords;
    if (gp.numOfPatchedInstructionRecords == 0) return 0;
    size_t nr = gp.numOfPatchedInstructionRecords, ni = gp.numOfInstances;
    size_t slack = ni * NW + 4;
    CUpti_SassMetrics_Data *d = calloc(nr, sizeof *d);
    CUpti_SassMetrics_InstanceValue *iv = calloc(nr * slack, sizeof *iv);
    for (size_t i = 0; i < nr; i++) {
        d[i].structSize = sizeof(CUpti_SassMetrics_Data);
        d[i].pInstanceValues = &iv[i * slack];
    }
    CUpti_SassMetricsFlushData_Params fp = {CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
    fp.ctx = ctx;
    fp.numOfPatchedInstructionRecords = nr;
    fp.numOfInstances = ni;
    fp.pMetricsData = d;
    double t0 = now();
    CU(cuptiSassMetricsFlushData(&fp));
    fprintf(LOG, "[%s] flush %.3f ms\n", tag, 1e3 * (now() - t0));
    /* slack check: values written past ni? */
    size_t past = 0;
    for (size_t i = 0; i < nr; i++)
        for (size_t k = ni; k < slack; k++)
            if (d[i].pInstanceValues[k].metricId || d[i].pInstanceValues[k].value) past++;
    fprintf(LOG, "[%s] instance values written past numOfInstances: %zu\n", tag, past);
    /* per-function sums */
    char fn[32][256];
    unsigned long long sums[32][NW];
    int nf = 0;
    memset(sums, 0, sizeof sums);
    double tcorr = 0;
    for (size_t i = 0; i < nr; i++) {
        const char *name = d[i].functionName ? d[i].functionName : "?";
        int f;
        for (f = 0; f < nf; f++) if (strcmp(fn[f], name) == 0) break;
        if (f == nf && nf < 32) snprintf(fn[nf++], 256, "%s", name);
        if (f >= 32) continue;
        for (size_t k = 0; k < ni; k++) {
            int w = which(d[i].pInstanceValues[k].metricId);
            if (w >= 0) sums[f][w] += d[i].pInstanceValues[k].value;
        }
        if (detail) {
            char file[256] = "-";
            unsigned line = 0;
            const cubin_t *c = cubin_of(d[i].cubinCrc);
            if (c) {
                CUpti_GetSassToSourceCorrelationParams cp = {CUpti_GetSassToSourceCorrelationParamsSize};
                cp.cubin = c->data;
                cp.cubinSize = c->size;
                cp.functionName = d[i].functionName;
                cp.pcOffset = d[i].pcOffset;
                double tc = now();
                CUptiResult r = cuptiGetSassToSourceCorrelation(&cp);
                tcorr += now() - tc;
                if (r == CUPTI_SUCCESS) {
                    snprintf(file, sizeof file, "%s/%s", cp.dirName ? cp.dirName : "", cp.fileName ? cp.fileName : "");
                    line = cp.lineNumber;
                    free(cp.fileName);
                    free(cp.dirName);
                } else snprintf(file, sizeof file, "corr-err-%d", (int)r);
            } else snprintf(file, sizeof file, "no-cubin-crc-%u", d[i].cubinCrc);
            fprintf(LOG, "REC %s\t%s\tidx=%u\tpc=0x%x\t%s:%u", tag, name, d[i].functionIndex, d[i].pcOffset, file, line);
            for (size_t k = 0; k < ni; k++) {
                int w = which(d[i].pInstanceValues[k].metricId);
                fprintf(LOG, "\t%s=%llu", w >= 0 ? want[w] : "?", (unsigned long long)d[i].pInstanceValues[k].value);
            }
            fprintf(LOG, "\n");
        }
    }
    if (detail) fprintf(LOG, "[%s] correlation total %.3f ms for %zu records\n", tag, 1e3 * tcorr, nr);
    for (int f = 0; f < nf; f++) {
        fprintf(LOG, "SUM %s\t%s", tag, fn[f]);
        for (size_t w = 0; w < NW; w++) if (have[w]) fprintf(LOG, "\t%s=%llu", want[w], sums[f][w]);
        fprintf(LOG, "\n");
    }
    free(iv);
    free(d);
    return 0;
}

static int enable(int lazy)
{
    CUpti_SassMetricsEnable_Params ep = {CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
    ep.ctx = ctx;
    ep.enableLazyPatching = (uint8_t)lazy;
    CU(cuptiSassMetricsEnable(&ep));
    return 0;
}

static int disable(const char *tag)
{
    CUpti_SassMetricsDisable_Params dp = {CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
    dp.ctx = ctx;
    CU(cuptiSassMetricsDisable(&dp));
    fprintf(LOG, "[%s] dropped=%zu\n", tag, dp.numOfDroppedRecords);
    return 0;
}

static int launch(int k)
{
    int e = probe_launch(k);
    if (e) fprintf(LOG, "launch %d (%s) error %d\n", k, probe_kernel_name(k), e);
    return e;
}

int main(int argc, char **argv)
{
    LOG = stdout;
    if (argc > 2) out_dir = argv[2];
    int plain = argc > 1 && strcmp(argv[1], "plain") == 0;
    if (plain) {
        if (probe_setup()) return 2;
        for (int k = 0; k < 5; k++) if (launch(k)) return 2;
        printf("plain ok\n");
        return 0;
    }
    double t_start = now();
    CUpti_SubscriberHandle sub;
    CU(cuptiSubscribe(&sub, on_cb, NULL));
    CU(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED));
    if (probe_setup()) { printf("setup failed\n"); return 2; }
    if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) { printf("no ctx\n"); return 2; }
    fprintf(LOG, "after setup: cubins=%d t=%.3f\n", n_cubins, now() - t_start);

    CUpti_Profiler_Initialize_Params ip = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CU(cuptiProfilerInitialize(&ip));
    CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cn.deviceIndex = 0;
    CU(cuptiDeviceGetChipName(&cn));
    fprintf(LOG, "chip %s\n", cn.pChipName);
    CUpti_SassMetrics_GetNumOfMetrics_Params nm = {CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE};
    nm.pChipName = cn.pChipName;
    CU(cuptiSassMetricsGetNumOfMetrics(&nm));
    CUpti_SassMetrics_MetricDetails *md = calloc(nm.numOfMetrics, sizeof *md);
    CUpti_SassMetrics_GetMetrics_Params gm = {CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE};
    gm.pChipName = cn.pChipName;
    gm.numOfMetrics = nm.numOfMetrics;
    gm.pMetricsList = md;
    CU(cuptiSassMetricsGetMetrics(&gm));
    char path[512];
    snprintf(path, sizeof path, "%s/sass-metrics.txt", out_dir);
    FILE *mf = fopen(path, "w");
    for (size_t i = 0; i < nm.numOfMetrics && mf; i++)
        fprintf(mf, "%s\t%llu\t%s\n", md[i].pMetricName, (unsigned long long)md[i].metricId,
                md[i].pMetricDescription ? md[i].pMetricDescription : "");
    if (mf) fclose(mf);
    fprintf(LOG, "metrics on chip: %zu\n", nm.numOfMetrics);
    CUpti_SassMetrics_Config cfg[NW];
    for (size_t i = 0; i < NW; i++) {
        CUpti_SassMetrics_GetProperties_Params pp = {CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
        pp.pChipName = cn.pChipName;
        pp.pMetricName = want[i];
        CUptiResult r = cuptiSassMetricsGetProperties(&pp);
        if (r != CUPTI_SUCCESS) { fprintf(LOG, "metric missing: %s (%d)\n", want[i], (int)r); continue; }
        have[i] = 1;
        ids[i] = pp.metric.metricId;
        cfg[n_cfg].metricId = ids[i];
        cfg[n_cfg].outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
        n_cfg++;
    }
    CUpti_SassMetricsSetConfig_Params sc = {CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
    sc.numOfMetricConfig = (size_t)n_cfg;
    sc.pConfigs = cfg;
    sc.deviceIndex = 0;
    double t0 = now();
    CU(cuptiSassMetricsSetConfig(&sc));
    fprintf(LOG, "setconfig %d metrics %.3f ms\n", n_cfg, 1e3 * (now() - t0));

    size_t nrec;
    const char *mode = argc > 3 ? argv[3] : "A";
    int K[8] = {0, 1, 2, 3, 4, 0, 2, 4};
    int nk = 8;
    CUpti_SassMetricsUnsetConfig_Params uc0 = {CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
    uc0.deviceIndex = 0;
    CUpti_Profiler_DeInitialize_Params di = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
    fprintf(LOG, "mode %s\n", mode);
    if (strcmp(mode, "A") == 0 || strcmp(mode, "B") == 0) {
        /* A: SetConfig/Enable/launch/flush/Disable/UnsetConfig per launch.
         * B: the same inside ProfilerInitialize/DeInitialize per launch. */
        int b = strcmp(mode, "B") == 0;
        CU(cuptiSassMetricsUnsetConfig(&uc0));
        if (b) CU(cuptiProfilerDeInitialize(&di));
        for (int j = 0; j < nk; j++) {
            char tag[64];
            snprintf(tag, sizeof tag, "%s%d-%s", mode, j, probe_kernel_name(K[j]));
            t0 = now();
            if (b) CU(cuptiProfilerInitialize(&ip));
            CU(cuptiSassMetricsSetConfig(&sc));
            double t1 = now();
            if (enable(1)) return 3;
            double t2 = now();
            launch(K[j]);
            double t3 = now();
            flush(tag, 1, &nrec);
            double t4 = now();
            disable(tag);
            CU(cuptiSassMetricsUnsetConfig(&uc0));
            if (b) CU(cuptiProfilerDeInitialize(&di));
            fprintf(LOG, "%s wall %.3f ms (setconfig %.3f enable %.3f launch %.3f flush %.3f rest %.3f)\n", tag,
                    1e3 * (now() - t0), 1e3 * (t1 - t0), 1e3 * (t2 - t1), 1e3 * (t3 - t2), 1e3 * (t4 - t3), 1e3 * (now() - t4));
        }
        CU(cuptiSassMetricsSetConfig(&sc));
    } else if (strcmp(mode, "C") == 0) {
        /* C: one enable, flush after each launch */
        t0 = now();
        if (enable(1)) return 3;
        for (int j = 0; j < nk; j++) {
            char tag[64];
            snprintf(tag, sizeof tag, "C%d-%s", j, probe_kernel_name(K[j]));
            launch(K[j]);
            flush(tag, 0, &nrec);
        }
        disable("C");
        fprintf(LOG, "C wall %.3f ms\n", 1e3 * (now() - t0));
    } else if (strcmp(mode, "D") == 0) {
        /* D: eager patching, every launch, one flush */
        t0 = now();
        if (enable(0)) return 3;
        for (int j = 0; j < nk; j++) launch(K[j]);
        flush("D-eager-all", 0, &nrec);
        disable("D");
        fprintf(LOG, "D wall %.3f ms\n", 1e3 * (now() - t0));
    } else if (strcmp(mode, "F") == 0 || strcmp(mode, "H") == 0) {
        /* F: every kernel run once before (module loaded), then eager; H: then lazy */
        int lazy = strcmp(mode, "H") == 0;
        for (int k = 0; k < 5; k++) launch(k);
        t0 = now();
        if (enable(lazy)) return 3;
        fprintf(LOG, "%s enable %.3f ms\n", mode, 1e3 * (now() - t0));
        for (int j = 0; j < nk; j++) {
            char tag[64];
            snprintf(tag, sizeof tag, "%s%d-%s", mode, j, probe_kernel_name(K[j]));
            double tl = now();
            launch(K[j]);
            fprintf(LOG, "%s launch %.3f ms\n", tag, 1e3 * (now() - tl));
            flush(tag, j < 5, &nrec);
        }
        disable(mode);
        fprintf(LOG, "%s wall %.3f ms\n", mode, 1e3 * (now() - t0));
    } else if (strcmp(mode, "P") == 0) {
        /* P: a fresh context per launch (the kernel's module loads again in it) */
        CUcontext first = ctx;
        for (int j = 0; j < nk; j++) {
            char tag[64];
            snprintf(tag, sizeof tag, "P%d-%s", j, probe_kernel_name(K[j]));
            t0 = now();
            CUdevice dev;
            cuDeviceGet(&dev, 0);
            CUcontext c2;
            CUresult cr = cuCtxCreate(&c2, NULL, 0, dev);
            if (cr != CUDA_SUCCESS) { fprintf(LOG, "cuCtxCreate %d\n", (int)cr); return 4; }
            ctx = c2;
            if (probe_setup()) { fprintf(LOG, "setup in new ctx failed\n"); return 4; }
            double t1 = now();
            if (enable(1)) return 3;
            launch(K[j]);
            flush(tag, 1, &nrec);
            disable(tag);
            double t2 = now();
            cuCtxDestroy(c2);
            fprintf(LOG, "%s wall %.3f ms (ctx+setup %.3f, sass %.3f, destroy %.3f)\n", tag, 1e3 * (now() - t0),
                    1e3 * (t1 - t0), 1e3 * (t2 - t1), 1e3 * (now() - t2));
        }
        cuCtxSetCurrent(first);
        ctx = first;
    } else if (strcmp(mode, "E") == 0) {
        /* E: lazy, same kernel twice then others, one flush */
        t0 = now();
        if (enable(1)) return 3;
        launch(2);
        launch(2);
        launch(0);
        flush("E-banks-twice-then-strided", 0, &nrec);
        disable("E");
        fprintf(LOG, "E wall %.3f ms\n", 1e3 * (now() - t0));
    }
    /* timing: plain launches without SASS */
    t0 = now();
    for (int k = 0; k < 5; k++) launch(k);
    fprintf(LOG, "plain 5 launches %.3f ms\n", 1e3 * (now() - t0));
    CUpti_SassMetricsUnsetConfig_Params uc = {CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
    uc.deviceIndex = 0;
    CUW(cuptiSassMetricsUnsetConfig(&uc));
    fprintf(LOG, "total %.3f s, cubins captured %d\n", now() - t_start, n_cubins);
    return 0;
}

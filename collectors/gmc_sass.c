/* gmc_sass.c — see gmc_sass.h. */
#include "gmc_sass.h"

#include "gmc_codes.h"
#include "gmc_internal.h"

#include "../core/sassdis.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
/* cupti_activity.h (cuptiGetDeviceId) has an enumerator beyond int */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <cupti_activity.h>
#pragma GCC diagnostic pop
#include <cupti_callbacks.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_result.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* In the order of gm_sl_counter. */
static const char *const S_metric_names[GM_SL_N] = {
    "smsp__sass_inst_executed",
    "smsp__sass_inst_executed_op_global_ld",
    "smsp__sass_inst_executed_op_global_st",
    "smsp__sass_inst_executed_op_shared_ld",
    "smsp__sass_inst_executed_op_shared_st",
    "smsp__sass_sectors_mem_global",
    "smsp__sass_sectors_mem_global_ideal",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
};

typedef struct {
    uint64_t crc;
    void *data;
    size_t size;
} S_cubin;

struct gmc_sass {
    int device;
    CUpti_SubscriberHandle subscriber;
    CUcontext ctx;
    uint64_t ids[GM_SL_N];
    bool configured, enabled;
    S_cubin *cubins;
    size_t n_cubins;
    bool cubin_oom;
    /* the cubin of each record of the last collect (its CRC), in record order */
    uint64_t *rec_crc;
    size_t n_rec_crc;
    /* injection target mode (gmc_sass_inject_start) */
    char *target, *out_path;
    bool (*match)(const char *symbol, const char *target);
    bool armed, finished;
    int depth;
};

static gmc_sass *g_sass;   /* one per process: CUPTI allows one subscriber */

static gmc_status S_cupti(gmc_error *err, CUptiResult r, const char *expr, int line)
{
    const char *desc = NULL;
    if (cuptiGetResultString(r, &desc) != CUPTI_SUCCESS)
        desc = NULL;
    return gmc_fail_cupti(err, (int)r, desc, expr, __FILE__, line);
}

#define S_CUPTI(call)                                                                  \
    do {                                                                               \
        CUptiResult r_ = (call);                                                       \
        if (r_ != CUPTI_SUCCESS) {                                                     \
            st = S_cupti(err, r_, #call, __LINE__);                                    \
            goto fail;                                                                 \
        }                                                                              \
    } while (0)

static void S_on_target_launch(gmc_sass *s, const CUpti_CallbackData *cb);

static void CUPTIAPI S_on_callback(void *user, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
                                   const void *data)
{
    gmc_sass *s = user;
    if (s && s->target && gmc_is_launch_callback(dom, cbid)) {
        S_on_target_launch(s, data);
        return;
    }
    if (!s || dom != CUPTI_CB_DOMAIN_RESOURCE || cbid != CUPTI_CBID_RESOURCE_MODULE_LOADED)
        return;
    const CUpti_ResourceData *rd = data;
    const CUpti_ModuleResourceData *m = rd ? rd->resourceDescriptor : NULL;
    if (!m || !m->pCubin || !m->cubinSize)
        return;
    CUpti_GetCubinCrcParams cp;
    memset(&cp, 0, sizeof cp);
    cp.size = CUpti_GetCubinCrcParamsSize;
    cp.cubin = m->pCubin;
    cp.cubinSize = m->cubinSize;
    if (cuptiGetCubinCrc(&cp) != CUPTI_SUCCESS)
        return;
    for (size_t i = 0; i < s->n_cubins; i++)
        if (s->cubins[i].crc == cp.cubinCrc)
            return;
    S_cubin *grown = realloc(s->cubins, (s->n_cubins + 1) * sizeof *grown);
    void *copy = malloc(m->cubinSize);
    if (!grown || !copy) {
        if (grown)
            s->cubins = grown;
        free(copy);
        s->cubin_oom = true;
        return;
    }
    s->cubins = grown;
    memcpy(copy, m->pCubin, m->cubinSize);
    s->cubins[s->n_cubins++] = (S_cubin){cp.cubinCrc, copy, m->cubinSize};
}

/* Profiler, chip, the counters on s->device.  No CUDA runtime call: it also
 * runs inside a launch callback of someone else's program. */
static gmc_status S_configure(gmc_sass *s, gmc_error *err)
{
    gmc_status st = GMC_OK;
    CUptiResult r;
    {
        CUpti_Profiler_Initialize_Params ip;
        memset(&ip, 0, sizeof ip);
        ip.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
        S_CUPTI(cuptiProfilerInitialize(&ip));
        CUpti_Device_GetChipName_Params cn;
        memset(&cn, 0, sizeof cn);
        cn.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
        cn.deviceIndex = (size_t)s->device;
        S_CUPTI(cuptiDeviceGetChipName(&cn));
        CUpti_SassMetrics_Config cfg[GM_SL_N];
        for (int k = 0; k < GM_SL_N; k++) {
            CUpti_SassMetrics_GetProperties_Params pp;
            memset(&pp, 0, sizeof pp);
            pp.structSize = CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE;
            pp.pChipName = cn.pChipName;
            pp.pMetricName = S_metric_names[k];
            r = cuptiSassMetricsGetProperties(&pp);
            if (r != CUPTI_SUCCESS) {
                st = gmc_fail(err, GMC_ERR_UNKNOWN_METRIC,
                              "SASS metric %s is not available on %s (CUPTI error %d)",
                              S_metric_names[k], cn.pChipName ? cn.pChipName : "this GPU", (int)r);
                goto fail;
            }
            s->ids[k] = pp.metric.metricId;
            cfg[k].metricId = pp.metric.metricId;
            cfg[k].outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
        }
        CUpti_SassMetricsSetConfig_Params sc;
        memset(&sc, 0, sizeof sc);
        sc.structSize = CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE;
        sc.numOfMetricConfig = GM_SL_N;
        sc.pConfigs = cfg;
        sc.deviceIndex = (uint32_t)s->device;
        S_CUPTI(cuptiSassMetricsSetConfig(&sc));
        s->configured = true;
    }
fail:
    return st;
}

gmc_status gmc_sass_enable(gmc_sass *s, bool lazy, gmc_error *err)
{
    gmc_status st = GMC_OK;
    if (!s || s->enabled)
        return gmc_fail(err, GMC_ERR_ARG, "SASS metrics: enable without an open session, or twice");
    {
        CUpti_SassMetricsEnable_Params ep;
        memset(&ep, 0, sizeof ep);
        ep.structSize = CUpti_SassMetricsEnable_Params_STRUCT_SIZE;
        ep.ctx = s->ctx;   /* NULL: the current context */
        ep.enableLazyPatching = lazy ? 1 : 0;
        S_CUPTI(cuptiSassMetricsEnable(&ep));
        s->enabled = true;
    }
fail:
    return st;
}

static const S_cubin *S_cubin_of(const gmc_sass *s, uint64_t crc)
{
    for (size_t i = 0; i < s->n_cubins; i++)
        if (s->cubins[i].crc == crc)
            return &s->cubins[i];
    return NULL;
}

typedef struct {
    const CUpti_SassMetrics_Data *d;
} S_order;

static int S_order_cmp(const void *pa, const void *pb)
{
    const CUpti_SassMetrics_Data *a = ((const S_order *)pa)->d, *b = ((const S_order *)pb)->d;
    if (a->cubinCrc != b->cubinCrc)
        return a->cubinCrc < b->cubinCrc ? -1 : 1;
    if (a->functionIndex != b->functionIndex)
        return a->functionIndex < b->functionIndex ? -1 : 1;
    if (a->pcOffset != b->pcOffset)
        return a->pcOffset < b->pcOffset ? -1 : 1;
    return 0;
}

/* File and line of one instruction, when the cubin was seen and carries line info. */
static void S_correlate(const gmc_sass *s, const CUpti_SassMetrics_Data *x, gm_sl_record *r)
{
    const S_cubin *c = S_cubin_of(s, x->cubinCrc);
    if (!c || !x->functionName)
        return;
    CUpti_GetSassToSourceCorrelationParams cp;
    memset(&cp, 0, sizeof cp);
    cp.size = CUpti_GetSassToSourceCorrelationParamsSize;
    cp.cubin = c->data;
    cp.cubinSize = c->size;
    cp.functionName = x->functionName;
    cp.pcOffset = x->pcOffset;
    if (cuptiGetSassToSourceCorrelation(&cp) != CUPTI_SUCCESS)
        return;
    if (cp.lineNumber > 0 && cp.fileName && *cp.fileName) {
        size_t len = (cp.dirName ? strlen(cp.dirName) : 0) + strlen(cp.fileName) + 2;
        r->file = malloc(len);
        if (r->file) {
            if (cp.dirName && *cp.dirName && cp.fileName[0] != '/')
                snprintf(r->file, len, "%s/%s", cp.dirName, cp.fileName);
            else
                snprintf(r->file, len, "%s", cp.fileName);
            r->line = cp.lineNumber;
        }
    }
    free(cp.fileName);
    free(cp.dirName);
}

static gmc_status S_disable(gmc_sass *s, size_t *dropped, gmc_error *err)
{
    gmc_status st = GMC_OK;
    CUpti_SassMetricsDisable_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE;
    dp.ctx = s->ctx;
    s->enabled = false;
    S_CUPTI(cuptiSassMetricsDisable(&dp));
    *dropped = dp.numOfDroppedRecords;
fail:
    return st;
}

gmc_status gmc_sass_collect(gmc_sass *s, gm_sl_record **recs, size_t *n, gmc_error *err)
{
    gmc_status st = GMC_OK;
    *recs = NULL;
    *n = 0;
    CUpti_SassMetrics_Data *d = NULL;
    CUpti_SassMetrics_InstanceValue *iv = NULL;
    size_t nr = 0, ni = 0, dropped = 0;
    if (!s || !s->enabled)
        return gmc_fail(err, GMC_ERR_ARG, "SASS metrics: collect without enable");
    {
        CUpti_SassMetricsGetDataProperties_Params gp;
        memset(&gp, 0, sizeof gp);
        gp.structSize = CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE;
        gp.ctx = s->ctx;
        S_CUPTI(cuptiSassMetricsGetDataProperties(&gp));
        nr = gp.numOfPatchedInstructionRecords;
        ni = gp.numOfInstances;
    }
    if (nr > 0 && ni > 0) {
        d = calloc(nr, sizeof *d);
        iv = calloc(nr * ni, sizeof *iv);
        *recs = calloc(nr, sizeof **recs);
        free(s->rec_crc);
        s->n_rec_crc = 0;
        s->rec_crc = calloc(nr, sizeof *s->rec_crc);
        if (!d || !iv || !*recs || !s->rec_crc) {
            st = gmc_fail(err, GMC_ERR_NOMEM, "out of memory for %zu SASS records", nr);
            goto fail;
        }
        for (size_t i = 0; i < nr; i++) {
            d[i].structSize = sizeof(CUpti_SassMetrics_Data);
            d[i].pInstanceValues = &iv[i * ni];
        }
        CUpti_SassMetricsFlushData_Params fp;
        memset(&fp, 0, sizeof fp);
        fp.structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE;
        fp.ctx = s->ctx;
        fp.numOfPatchedInstructionRecords = nr;
        fp.numOfInstances = ni;
        fp.pMetricsData = d;
        S_CUPTI(cuptiSassMetricsFlushData(&fp));
        /* CUPTI gives one record per instruction and metric: order by
         * (cubin, function, pc), then one gm_sl_record per instruction. */
        S_order *ord = calloc(nr, sizeof *ord);
        if (!ord) {
            st = gmc_fail(err, GMC_ERR_NOMEM, "out of memory for %zu SASS records", nr);
            goto fail;
        }
        for (size_t i = 0; i < nr; i++)
            ord[i] = (S_order){&d[i]};
        qsort(ord, nr, sizeof *ord, S_order_cmp);
        for (size_t i = 0; i < nr; i++) {
            const CUpti_SassMetrics_Data *x = ord[i].d;
            gm_sl_record *r = *n ? &(*recs)[*n - 1] : NULL;
            if (!r || i == 0 || S_order_cmp(&ord[i - 1], &ord[i]) != 0) {
                s->rec_crc[*n] = x->cubinCrc;
                s->n_rec_crc = *n + 1;
                r = &(*recs)[(*n)++];
                r->function = strdup(x->functionName ? x->functionName : "?");
                r->pc = x->pcOffset;
                if (!r->function) {
                    free(ord);
                    st = gmc_fail(err, GMC_ERR_NOMEM, "out of memory");
                    goto fail;
                }
                S_correlate(s, x, r);
            }
            for (size_t j = 0; j < ni; j++)
                for (int k = 0; k < GM_SL_N; k++)
                    if (x->pInstanceValues[j].metricId == s->ids[k])
                        r->count[k] += (long long)x->pInstanceValues[j].value;
        }
        free(ord);
    }
    st = S_disable(s, &dropped, err);
    if (st == GMC_OK && dropped > 0)
        st = gmc_fail(err, GMC_ERR_CUPTI, "CUPTI dropped %zu SASS records", dropped);
    if (st == GMC_OK && s->cubin_oom)
        st = gmc_fail(err, GMC_ERR_NOMEM, "out of memory keeping a module's cubin");
    free(d);
    free(iv);
    if (st != GMC_OK) {
        gm_sl_records_free(*recs, *n);
        *recs = NULL;
        *n = 0;
    }
    return st;
fail:
    if (s->enabled) {
        size_t ignored;
        gmc_error e2;
        S_disable(s, &ignored, &e2);
    }
    free(d);
    free(iv);
    gm_sl_records_free(*recs, *n);
    *recs = NULL;
    *n = 0;
    return st;
}

void gmc_sass_close(gmc_sass *s)
{
    if (!s)
        return;
    if (s->enabled) {
        size_t ignored;
        gmc_error e;
        S_disable(s, &ignored, &e);
    }
    if (s->configured) {
        CUpti_SassMetricsUnsetConfig_Params uc;
        memset(&uc, 0, sizeof uc);
        uc.structSize = CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE;
        uc.deviceIndex = (uint32_t)s->device;
        cuptiSassMetricsUnsetConfig(&uc);
    }
    if (s->subscriber)
        cuptiUnsubscribe(s->subscriber);
    for (size_t i = 0; i < s->n_cubins; i++)
        free(s->cubins[i].data);
    free(s->cubins);
    free(s->rec_crc);
    free(s->target);
    free(s->out_path);
    if (g_sass == s)
        g_sass = NULL;
    free(s);
}

/* ---- inside someone else's program --------------------------------------------- */

typedef CUresult (*S_pfn_sync)(void);

/* Write a cubin to path (a new file); false when any write failed (the
 * file is removed then). */
static bool S_write_cubin(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wbx");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, size, f) == size;
    ok = fclose(f) == 0 && ok;
    if (!ok)
        remove(path);
    return ok;
}

/* For the records without line info: each one's cubin written once beside
 * out_path ("OUT.CRC.cubin"), and a directive per function that names it
 * (core/sassdis.h).  The CLI disassembles it; a cubin that cannot be written
 * only loses the instructions' text. */
static void S_write_cubins(const gmc_sass *s, const gm_sl_record *recs, size_t n, gm_buf *b)
{
    bool *written = n && s->n_rec_crc == n ? calloc(n, sizeof *written) : NULL;
    for (size_t i = 0; written && i < n; i++) {
        if (recs[i].line != 0)
            continue;
        uint64_t crc = s->rec_crc[i];
        bool done = false;   /* this function of this cubin named already */
        for (size_t j = 0; j < i && !done; j++)
            done = recs[j].line == 0 && s->rec_crc[j] == crc &&
                   strcmp(recs[j].function, recs[i].function) == 0;
        if (done)
            continue;
        const S_cubin *c = S_cubin_of(s, crc);
        if (!c)
            continue;
        /* the cubin's first record without line info wrote it, or failed to */
        size_t first = i;
        for (size_t j = 0; j < i && first == i; j++)
            if (recs[j].line == 0 && s->rec_crc[j] == crc)
                first = j;
        gm_buf path = GM_BUF_INIT;
        gm_buf_printf(&path, "%s.%016llx.cubin", s->out_path, (unsigned long long)crc);
        if (first == i)
            written[i] = S_write_cubin(path.data, c->data, c->size);
        if (written[first])
            gm_sl_cubin_write(b, recs[i].function, path.data);
        gm_buf_free(&path);
    }
    free(written);
}

/* Write the records of the target's launch, or an error line, to out_path
 * (temporary file + rename). */
static void S_write_out(const gmc_sass *s, const gm_sl_record *recs, size_t n, const char *error)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_printf(&b, "%s\n", GM_SL_RECORDS_HEADER);
    if (error) {
        gm_buf_puts(&b, "# error: ");
        for (const char *p = error; *p; p++)
            gm_buf_putc(&b, *p == '\n' ? ' ' : *p);
        gm_buf_putc(&b, '\n');
    }
    S_write_cubins(s, recs, n, &b);
    for (size_t i = 0; i < n; i++)
        gm_sl_record_write(&b, &recs[i]);
    gm_buf tmp = GM_BUF_INIT;
    gm_buf_printf(&tmp, "%s.tmp", s->out_path);
    FILE *f = fopen(tmp.data, "w");
    bool ok = f && fwrite(b.data, 1, b.len, f) == b.len;
    if (f)
        ok = fclose(f) == 0 && ok;
    if (ok)
        ok = rename(tmp.data, s->out_path) == 0;
    if (!ok)
        remove(tmp.data);
    gm_buf_free(&tmp);
    gm_buf_free(&b);
}

static void S_on_target_launch(gmc_sass *s, const CUpti_CallbackData *cb)
{
    if (!cb || s->finished)
        return;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        /* a runtime launch calls the driver's inside it: only the outermost counts */
        if (s->depth++ > 0 || s->armed)
            return;
        const char *sym = cb->symbolName ? cb->symbolName : "";
        if (!s->match(sym, s->target))
            return;
        gmc_error err = {GMC_OK, ""};
        gmc_status st = GMC_OK;
        uint32_t dev = 0;
        CUptiResult r = cuptiGetDeviceId(cb->context, &dev);
        if (r != CUPTI_SUCCESS) {
            S_write_out(s, NULL, 0, "cuptiGetDeviceId failed");
            s->finished = true;
            return;
        }
        s->device = (int)dev;
        s->ctx = cb->context;
        if (!s->configured)
            st = S_configure(s, &err);
        if (st == GMC_OK)
            st = gmc_sass_enable(s, true, &err);
        if (st != GMC_OK) {
            S_write_out(s, NULL, 0, err.message);
            s->finished = true;
            return;
        }
        s->armed = true;
        return;
    }
    if (s->depth > 0 && --s->depth > 0)
        return;
    if (!s->armed)
        return;
    /* the target's launch has been enqueued: wait for it, collect, stop */
    s->finished = true;
    gmc_error err = {GMC_OK, ""};
    S_pfn_sync sync = NULL;
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuCtxSynchronize", (void **)&sync, 12000,
                                         cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || !sync || sync() != CUDA_SUCCESS) {
        size_t ignored;
        S_disable(s, &ignored, &err);
        S_write_out(s, NULL, 0, "cannot wait for the kernel (cuCtxSynchronize)");
        return;
    }
    gm_sl_record *recs = NULL;
    size_t n = 0;
    gmc_status st = gmc_sass_collect(s, &recs, &n, &err);
    S_write_out(s, recs, n, st == GMC_OK ? NULL : err.message);
    gm_sl_records_free(recs, n);
}

bool gmc_sass_inject_start(const char *target, const char *out_path,
                           bool (*match)(const char *symbol, const char *target))
{
    if (g_sass || !target || !out_path || !match)
        return false;
    gmc_sass *s = calloc(1, sizeof *s);
    if (!s)
        return false;
    s->target = strdup(target);
    s->out_path = strdup(out_path);
    s->match = match;
    if (!s->target || !s->out_path ||
        cuptiSubscribe(&s->subscriber, S_on_callback, s) != CUPTI_SUCCESS) {
        s->subscriber = NULL;
        gmc_sass_close(s);
        return false;
    }
    bool ok = cuptiEnableCallback(1, s->subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                  CUPTI_CBID_RESOURCE_MODULE_LOADED) == CUPTI_SUCCESS;
    for (size_t k = 0; k < gmc_n_launch_callbacks; k++)
        ok &= cuptiEnableCallback(1, s->subscriber, gmc_launch_callbacks[k].domain,
                                  gmc_launch_callbacks[k].cbid) == CUPTI_SUCCESS;
    if (!ok) {
        gmc_sass_close(s);
        return false;
    }
    g_sass = s;
    return true;
}

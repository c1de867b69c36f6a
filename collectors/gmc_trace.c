/* gmc_trace.c — see gmc_trace.h. */
#include "gmc_trace.h"

#include "gmc_internal.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_pcsampling.h>
#include <cupti_result.h>
#include <sanitizer.h>
#include <generated_cuda_meta.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The patch fatbin (collectors/trace_patch.cu), embedded by the Makefile. */
extern const unsigned char gmc_trace_patch_image[];
extern const size_t gmc_trace_patch_size;

#define S_GLOBAL_PATCH "gmt_global_access"
#define S_SHARED_PATCH "gmt_shared_access"

typedef struct {
    CUmodule mod;
    CUcontext ctx;
    void *cubin;
    size_t cubin_size;
    uint64_t crc;
    bool patched;
} S_module;

/* Device memory of one context: the patches, the table, the launch headers;
 * and the pinned host memory the table is read back into (from a launch
 * callback the sanitizer copies to pinned memory only: to pageable memory
 * sanitizerMemcpyDeviceToHost fails with SANITIZER_ERROR_INVALID_PARAMETER,
 * seen on the H200 with CUDA 13.0). */
typedef struct {
    CUcontext ctx;
    bool patches_added;
    gmt_entry *table;
    unsigned long long *dropped;
    gmt_launch *headers;
    gmt_alloc *allocs;
    size_t allocs_cap;
    gmt_entry *host_table;
    unsigned long long *host_dropped;
} S_context;

typedef struct {
    char *function;
    unsigned long long grid_id;
    CUmodule mod;
    uint64_t fn_pc, fn_size;     /* fn_size 0: unknown */
    Sanitizer_StreamHandle stream;
    Sanitizer_LaunchHandle hlaunch;  /* valid until the launch's end callback */
    unsigned char *params;       /* cfg.arguments: gmc_trace_launch's */
    size_t params_size;
    gm_sl_param *layout;
    size_t n_params;
} S_launch;

/* The driver's launch call the launch callbacks of this thread are inside
 * (cfg.arguments): its arguments, read when a launch is traced. */
typedef struct {
    bool set;
    CUfunction f;                /* a CUfunction, or from the runtime a CUkernel */
    void **params, **extra;
} S_api_launch;

static _Thread_local S_api_launch t_api;

struct gmc_trace {
    gmc_trace_config cfg;
    Sanitizer_SubscriberHandle sub;
    pthread_mutex_t lock;
    S_module *mods;
    size_t n_mods, cap_mods;
    S_context *ctxs;
    size_t n_ctxs, cap_ctxs;
    gmt_alloc *live;             /* device allocations seen, unsorted */
    size_t n_live, cap_live;
    /* the pass */
    bool armed;
    bool reset_done;             /* the table was cleared for this pass */
    S_context *pass_ctx;
    S_launch *launches;
    size_t n_launches;
    size_t untraced;
    size_t modules_patched;
    gmt_alloc *pass_allocs;      /* the table uploaded for this pass, sorted */
    size_t n_pass_allocs;
    /* PER_LAUNCH: streams of untraced launches of a module while it was
     * patched, waited for before it is unpatched */
    Sanitizer_StreamHandle *inflight;
    size_t n_inflight, cap_inflight;
    /* the first failure inside a callback, reported by gmc_trace_end */
    gmc_error cb_err;
};

static gmc_trace *g_trace;   /* the sanitizer allows one subscriber per process */

static gmc_status S_san(gmc_error *err, SanitizerResult r, const char *call, int line)
{
    const char *desc = NULL;
    if (sanitizerGetResultString(r, &desc) != SANITIZER_SUCCESS)
        desc = NULL;
    return gmc_fail(err, GMC_ERR_CUDA, "Compute Sanitizer API: %s failed: error %d (%s) [%s:%d]",
                    call, (int)r, desc ? desc : "no description", __FILE__, line);
}

#define S_SAN(call)                                                                    \
    do {                                                                               \
        SanitizerResult r_ = (call);                                                   \
        if (r_ != SANITIZER_SUCCESS) {                                                 \
            st = S_san(err, r_, #call, __LINE__);                                      \
            goto fail;                                                                 \
        }                                                                              \
    } while (0)

/* Keep the first error of a callback. */
static void S_cb_fail(gmc_trace *t, const gmc_error *e)
{
    if (t->cb_err.status == GMC_OK)
        t->cb_err = *e;
}

gmc_trace_config gmc_trace_config_default(void)
{
    gmc_trace_config c;
    memset(&c, 0, sizeof c);
    c.patching = GMC_TRACE_PATCH_WHILE_TRACING;
    c.table_slots = (size_t)1 << 18;
    c.max_launches = 1024;
    c.shards = 1;
    c.per_allocation = true;
    return c;
}

/* ---- modules, contexts, allocations -------------------------------------------- */

static S_module *S_module_of(gmc_trace *t, CUmodule mod)
{
    for (size_t i = 0; i < t->n_mods; i++)
        if (t->mods[i].mod == mod)
            return &t->mods[i];
    return NULL;
}

static S_context *S_context_of(gmc_trace *t, CUcontext ctx, gmc_error *err)
{
    for (size_t i = 0; i < t->n_ctxs; i++)
        if (t->ctxs[i].ctx == ctx)
            return &t->ctxs[i];
    if (t->n_ctxs == t->cap_ctxs) {
        size_t cap = t->cap_ctxs ? 2 * t->cap_ctxs : 4;
        S_context *g = realloc(t->ctxs, cap * sizeof *g);
        if (!g) {
            gmc_fail(err, GMC_ERR_NOMEM, "out of memory for a context's tracing state");
            return NULL;
        }
        /* pass_ctx points into the array: keep it pointing at the same context */
        if (t->pass_ctx)
            t->pass_ctx = g + (t->pass_ctx - t->ctxs);
        t->ctxs = g;
        t->cap_ctxs = cap;
    }
    S_context *c = &t->ctxs[t->n_ctxs++];
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    return c;
}

/* Patch one module (the patches loaded into its context first). */
static gmc_status S_patch(gmc_trace *t, S_module *m, gmc_error *err)
{
    gmc_status st = GMC_OK;
    if (m->patched)
        return GMC_OK;
    S_context *c = S_context_of(t, m->ctx, err);
    if (!c)
        return GMC_ERR_NOMEM;
    if (!c->patches_added) {
        S_SAN(sanitizerAddPatches(gmc_trace_patch_image, m->ctx));
        c->patches_added = true;
    }
    S_SAN(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, m->mod,
                                     S_GLOBAL_PATCH));
    S_SAN(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, m->mod,
                                     S_SHARED_PATCH));
    S_SAN(sanitizerPatchModule(m->mod));
    m->patched = true;
    t->modules_patched++;
fail:
    return st;
}

static gmc_status S_unpatch(S_module *m, gmc_error *err)
{
    gmc_status st = GMC_OK;
    if (!m->patched)
        return GMC_OK;
    S_SAN(sanitizerUnpatchModule(m->mod));
    m->patched = false;
fail:
    return st;
}

static void S_module_loaded(gmc_trace *t, const Sanitizer_ResourceModuleData *d)
{
    gmc_error e = {GMC_OK, ""};
    if (!d || !d->module)
        return;
    if (t->n_mods == t->cap_mods) {
        size_t cap = t->cap_mods ? 2 * t->cap_mods : 16;
        S_module *g = realloc(t->mods, cap * sizeof *g);
        if (!g) {
            gmc_fail(&e, GMC_ERR_NOMEM, "out of memory keeping a module");
            S_cb_fail(t, &e);
            return;
        }
        t->mods = g;
        t->cap_mods = cap;
    }
    S_module *m = &t->mods[t->n_mods++];
    memset(m, 0, sizeof *m);
    m->mod = d->module;
    m->ctx = d->context;
    if (d->pCubin && d->cubinSize) {
        m->cubin = malloc(d->cubinSize);
        if (m->cubin) {
            memcpy(m->cubin, d->pCubin, d->cubinSize);
            m->cubin_size = d->cubinSize;
            CUpti_GetCubinCrcParams cp;
            memset(&cp, 0, sizeof cp);
            cp.size = CUpti_GetCubinCrcParamsSize;
            cp.cubin = m->cubin;
            cp.cubinSize = m->cubin_size;
            if (cuptiGetCubinCrc(&cp) == CUPTI_SUCCESS)
                m->crc = cp.cubinCrc;
        }
    }
    if ((t->armed && t->cfg.patching == GMC_TRACE_PATCH_WHILE_TRACING) ||
        t->cfg.patching == GMC_TRACE_PATCH_ON_LOAD)
        if (S_patch(t, m, &e) != GMC_OK)
            S_cb_fail(t, &e);
}

static void S_module_unloading(gmc_trace *t, const Sanitizer_ResourceModuleData *d)
{
    S_module *m = d ? S_module_of(t, d->module) : NULL;
    if (!m)
        return;
    free(m->cubin);
    *m = t->mods[--t->n_mods];
}

static void S_memory(gmc_trace *t, Sanitizer_CallbackId cbid, const Sanitizer_ResourceMemoryData *d)
{
    if (!d)
        return;
    if (cbid == SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE ||
        cbid == SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC) {
        for (size_t i = 0; i < t->n_live; i++)
            if (t->live[i].base == d->address) {
                t->live[i] = t->live[--t->n_live];
                break;
            }
        return;
    }
    if (!d->size)
        return;
    if (t->n_live == t->cap_live) {
        size_t cap = t->cap_live ? 2 * t->cap_live : 64;
        gmt_alloc *g = realloc(t->live, cap * sizeof *g);
        if (!g)
            return;   /* the allocation goes unnamed: its accesses count as "no allocation" */
        t->live = g;
        t->cap_live = cap;
    }
    t->live[t->n_live++] = (gmt_alloc){d->address, d->size};
}

static int S_alloc_cmp(const void *pa, const void *pb)
{
    const gmt_alloc *a = pa, *b = pb;
    return a->base < b->base ? -1 : a->base > b->base;
}

/* ---- launches ------------------------------------------------------------------ */

/* First traced launch of a pass: device memory, cleared table, allocation table. */
static gmc_status S_pass_start(gmc_trace *t, S_context *c, Sanitizer_StreamHandle stream,
                               gmc_error *err)
{
    gmc_status st = GMC_OK;
    size_t table_bytes = t->cfg.table_slots * sizeof(gmt_entry);
    if (!c->table)
        S_SAN(sanitizerAlloc(c->ctx, (void **)&c->table, table_bytes));
    if (!c->dropped)
        S_SAN(sanitizerAlloc(c->ctx, (void **)&c->dropped, sizeof *c->dropped));
    if (!c->headers)
        S_SAN(sanitizerAlloc(c->ctx, (void **)&c->headers, t->cfg.max_launches * sizeof(gmt_launch)));
    if (!c->host_table)
        S_SAN(sanitizerAllocHost(c->ctx, (void **)&c->host_table, table_bytes));
    if (!c->host_dropped)
        S_SAN(sanitizerAllocHost(c->ctx, (void **)&c->host_dropped, sizeof *c->host_dropped));
    S_SAN(sanitizerMemset(c->table, 0, table_bytes, stream));
    S_SAN(sanitizerMemset(c->dropped, 0, sizeof *c->dropped, stream));
    free(t->pass_allocs);
    t->pass_allocs = NULL;
    t->n_pass_allocs = 0;
    if (t->cfg.per_allocation && t->n_live) {
        size_t n = t->n_live < GMT_MAX_ALLOCS ? t->n_live : GMT_MAX_ALLOCS;
        t->pass_allocs = malloc(n * sizeof *t->pass_allocs);
        if (!t->pass_allocs)
            return gmc_fail(err, GMC_ERR_NOMEM, "out of memory for the allocation table");
        memcpy(t->pass_allocs, t->live, n * sizeof *t->pass_allocs);
        qsort(t->pass_allocs, n, sizeof *t->pass_allocs, S_alloc_cmp);
        t->n_pass_allocs = n;
        if (n > c->allocs_cap) {
            if (c->allocs)
                S_SAN(sanitizerFree(c->ctx, c->allocs));
            c->allocs = NULL;
            S_SAN(sanitizerAlloc(c->ctx, (void **)&c->allocs, n * sizeof(gmt_alloc)));
            c->allocs_cap = n;
        }
        S_SAN(sanitizerMemcpyHostToDeviceAsync(c->allocs, t->pass_allocs, n * sizeof(gmt_alloc),
                                               stream));
    }
    /* later launches of the pass may use other streams: the table must be clear first */
    S_SAN(sanitizerStreamSynchronize(stream));
    t->pass_ctx = c;
    t->reset_done = true;
fail:
    return st;
}

/* A driver entry point into *fn (no link with libcuda: see gmc_cupti.c);
 * NULL when this driver has none. */
static void S_driver(const char *name, unsigned version, void **fn)
{
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion(name, fn, version, cudaEnableDefault, &q) !=
            cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
        *fn = NULL;
}

typedef CUresult (*S_pfn_func_param)(CUfunction, size_t, size_t *, size_t *);
typedef CUresult (*S_pfn_kernel_param)(CUkernel, size_t, size_t *, size_t *);

/* The arguments of a traced launch (cfg.arguments), from the driver call
 * this callback is inside: their layout from the launched function (or, a
 * runtime launch, its CUkernel), their bytes from kernelParams or a
 * parameter buffer.  Nothing when either is unknown: the launch is traced
 * all the same. */
static void S_capture_args(const Sanitizer_LaunchData *d, S_launch *l)
{
    static S_pfn_func_param func_param;
    static S_pfn_kernel_param kernel_param;
    static bool looked;
    if (!t_api.set)
        return;
    if (!looked) {
        S_driver("cuFuncGetParamInfo", 12040, (void **)&func_param);
        S_driver("cuKernelGetParamInfo", 12040, (void **)&kernel_param);
        looked = true;
    }
    size_t off, size, n = 0, end = 0;
    int by = -1;   /* 0: the launched CUfunction, 1: the call's CUkernel */
    if (func_param && func_param(d->function, 0, &off, &size) == CUDA_SUCCESS)
        by = 0;
    else if (kernel_param && t_api.f &&
             kernel_param((CUkernel)t_api.f, 0, &off, &size) == CUDA_SUCCESS)
        by = 1;
    if (by < 0)
        return;   /* no parameters, or no way to ask */
    gm_sl_param *layout = NULL;
    for (CUresult r = CUDA_SUCCESS; r == CUDA_SUCCESS && n < 4096;) {
        gm_sl_param *g = realloc(layout, (n + 1) * sizeof *g);
        if (!g) {
            free(layout);
            return;
        }
        layout = g;
        layout[n++] = (gm_sl_param){off, size};
        if (off + size > end)
            end = off + size;
        r = by ? kernel_param((CUkernel)t_api.f, n, &off, &size)
               : func_param(d->function, n, &off, &size);
    }
    unsigned char *buf = calloc(end ? end : 1, 1);
    if (!buf) {
        free(layout);
        return;
    }
    bool ok = true;
    if (t_api.params) {
        for (size_t i = 0; i < n && ok; i++) {
            ok = t_api.params[i] != NULL;
            if (ok)
                memcpy(buf + layout[i].offset, t_api.params[i], layout[i].size);
        }
    } else if (t_api.extra) {
        /* CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE: the arguments as laid out */
        const void *pb = NULL;
        const size_t *ps = NULL;
        for (size_t k = 0; t_api.extra[k] != CU_LAUNCH_PARAM_END && k < 64; k += 2) {
            if (t_api.extra[k] == CU_LAUNCH_PARAM_BUFFER_POINTER)
                pb = t_api.extra[k + 1];
            else if (t_api.extra[k] == CU_LAUNCH_PARAM_BUFFER_SIZE)
                ps = t_api.extra[k + 1];
        }
        ok = pb && ps;
        if (ok)
            memcpy(buf, pb, *ps < end ? *ps : end);
    } else {
        ok = false;
    }
    if (!ok) {
        free(buf);
        free(layout);
        return;
    }
    l->params = buf;
    l->params_size = end;
    l->layout = layout;
    l->n_params = n;
}

static void S_launch_free(S_launch *l)
{
    free(l->function);
    free(l->params);
    free(l->layout);
    memset(l, 0, sizeof *l);
}

/* An untraced launch of a patched module (PER_LAUNCH): its stream is
 * waited for before the module is unpatched. */
static void S_note_inflight(gmc_trace *t, Sanitizer_StreamHandle s)
{
    for (size_t i = 0; i < t->n_inflight; i++)
        if (t->inflight[i] == s)
            return;
    if (t->n_inflight == t->cap_inflight) {
        size_t cap = t->cap_inflight ? 2 * t->cap_inflight : 8;
        Sanitizer_StreamHandle *g = realloc(t->inflight, cap * sizeof *g);
        if (!g) {
            gmc_error e;
            gmc_fail(&e, GMC_ERR_NOMEM, "out of memory keeping a stream to wait for");
            S_cb_fail(t, &e);
            return;
        }
        t->inflight = g;
        t->cap_inflight = cap;
    }
    t->inflight[t->n_inflight++] = s;
}

static void S_launch_begin(gmc_trace *t, const Sanitizer_LaunchData *d)
{
    gmc_error e = {GMC_OK, ""};
    gmc_status st = GMC_OK;
    gmc_error *err = &e;
    S_module *m = S_module_of(t, d->module);
    if (!t->armed ||
        (t->cfg.select &&
         !t->cfg.select(t->cfg.user, d->functionName ? d->functionName : "", d->gridId))) {
        /* a patched module's untraced launch runs with the patch disabled */
        if (m && m->patched) {
            S_SAN(sanitizerSetLaunchCallbackData(d->hLaunch, d->function, d->hStream, NULL));
            if (t->cfg.patching == GMC_TRACE_PATCH_PER_LAUNCH)
                S_note_inflight(t, d->hStream);
        }
        return;
    }
    if (!m) {
        /* loaded while no subscriber listened (before gmc_trace_open, or detached):
         * patchable, but without its cubin there are no lines */
        Sanitizer_ResourceModuleData md;
        memset(&md, 0, sizeof md);
        md.context = d->context;
        md.module = d->module;
        bool was = t->armed;
        t->armed = false;   /* register only: patched below with the error checked */
        S_module_loaded(t, &md);
        t->armed = was;
        if (!(m = S_module_of(t, d->module))) {
            t->untraced++;
            return;
        }
    }
    if (t->n_launches == t->cfg.max_launches || (t->pass_ctx && t->pass_ctx->ctx != d->context)) {
        t->untraced++;
        if (m && m->patched) {
            S_SAN(sanitizerSetLaunchCallbackData(d->hLaunch, d->function, d->hStream, NULL));
            if (t->cfg.patching == GMC_TRACE_PATCH_PER_LAUNCH)
                S_note_inflight(t, d->hStream);
        }
        return;
    }
    if (!m->patched && (st = S_patch(t, m, err)) != GMC_OK)
        goto fail;
    S_context *c = S_context_of(t, d->context, err);
    if (!c) {
        st = GMC_ERR_NOMEM;
        goto fail;
    }
    if (!t->reset_done && (st = S_pass_start(t, c, d->hStream, err)) != GMC_OK)
        goto fail;
    S_launch *l = &t->launches[t->n_launches];
    memset(l, 0, sizeof *l);
    l->function = strdup(d->functionName ? d->functionName : "?");
    if (!l->function) {
        st = gmc_fail(err, GMC_ERR_NOMEM, "out of memory");
        goto fail;
    }
    l->grid_id = d->gridId;
    l->mod = d->module;
    l->stream = d->hStream;
    l->hlaunch = d->hLaunch;
    if (!d->functionName ||
        sanitizerGetFunctionPcAndSize(d->module, d->functionName, &l->fn_pc, &l->fn_size) !=
            SANITIZER_SUCCESS) {
        /* PCs are counted from the function's start: without it, nothing to key on */
        free(l->function);
        l->function = NULL;
        t->untraced++;
        S_SAN(sanitizerSetLaunchCallbackData(d->hLaunch, d->function, d->hStream, NULL));
        if (t->cfg.patching == GMC_TRACE_PATCH_PER_LAUNCH)
            S_note_inflight(t, d->hStream);
        return;
    }
    if (t->cfg.arguments)
        S_capture_args(d, l);
    gmt_launch h;
    memset(&h, 0, sizeof h);
    h.table = c->table;
    h.dropped = c->dropped;
    h.allocs = c->allocs;
    h.n_allocs = (unsigned)t->n_pass_allocs;
    h.mask = (unsigned)(t->cfg.table_slots - 1);
    h.launch = (unsigned)t->n_launches;
    h.shards = (unsigned)t->cfg.shards;
    h.function_pc = l->fn_pc;
    h.probe = t->cfg.probe;
    gmt_launch *dh = &c->headers[t->n_launches];
    t->n_launches++;
    S_SAN(sanitizerMemcpyHostToDeviceAsync(dh, &h, sizeof h, d->hStream));
    S_SAN(sanitizerSetLaunchCallbackData(d->hLaunch, d->function, d->hStream, dh));
    return;
fail:
    (void)st;
    S_cb_fail(t, err);
}

/* The driver's launch calls (cfg.arguments): their arguments, kept for the
 * launch callbacks made inside them on this thread. */
static void S_api(Sanitizer_CallbackId cbid, const Sanitizer_CallbackData *cb)
{
    memset(&t_api, 0, sizeof t_api);
    if (!cb || cb->callbackSite != SANITIZER_API_ENTER || !cb->functionParams)
        return;
    const void *p = cb->functionParams;
    switch (cbid) {
    case SANITIZER_CBID_DRIVER_API_cuLaunchKernel: {
        const cuLaunchKernel_params *a = p;
        t_api = (S_api_launch){true, a->f, a->kernelParams, a->extra};
        break;
    }
    case SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz: {
        const cuLaunchKernel_ptsz_params *a = p;
        t_api = (S_api_launch){true, a->f, a->kernelParams, a->extra};
        break;
    }
    case SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx: {
        const cuLaunchKernelEx_params *a = p;
        t_api = (S_api_launch){true, a->f, a->kernelParams, a->extra};
        break;
    }
    case SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz: {
        const cuLaunchKernelEx_ptsz_params *a = p;
        t_api = (S_api_launch){true, a->f, a->kernelParams, a->extra};
        break;
    }
    case SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel: {
        const cuLaunchCooperativeKernel_params *a = p;
        t_api = (S_api_launch){true, a->f, a->kernelParams, NULL};
        break;
    }
    case SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel_ptsz: {
        const cuLaunchCooperativeKernel_ptsz_params *a = p;
        t_api = (S_api_launch){true, a->f, a->kernelParams, NULL};
        break;
    }
    default:
        break;
    }
}

static const Sanitizer_CallbackId S_api_launches[] = {
    SANITIZER_CBID_DRIVER_API_cuLaunchKernel, SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz,
    SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx, SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz,
    SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel,
    SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel_ptsz};

static void S_launch_end(gmc_trace *t, const Sanitizer_LaunchData *d);

static void S_callback(void *user, Sanitizer_CallbackDomain dom, Sanitizer_CallbackId cbid,
                       const void *data)
{
    gmc_trace *t = user;
    if (!t)
        return;
    if (dom == SANITIZER_CB_DOMAIN_DRIVER_API) {
        S_api(cbid, data);
        return;
    }
    pthread_mutex_lock(&t->lock);
    if (dom == SANITIZER_CB_DOMAIN_RESOURCE) {
        switch (cbid) {
        case SANITIZER_CBID_RESOURCE_MODULE_LOADED: S_module_loaded(t, data); break;
        case SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING: S_module_unloading(t, data); break;
        case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC:
        case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE:
        case SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC:
        case SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC: S_memory(t, cbid, data); break;
        default: break;
        }
    } else if (dom == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_BEGIN && data) {
        S_launch_begin(t, data);
    } else if (dom == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_END && data) {
        S_launch_end(t, data);
    }
    pthread_mutex_unlock(&t->lock);
}

/* ---- the API ------------------------------------------------------------------- */

static gmc_status S_subscribe(gmc_trace *t, gmc_error *err)
{
    gmc_status st = GMC_OK;
    S_SAN(sanitizerSubscribe(&t->sub, S_callback, t));
    static const Sanitizer_CallbackId res[] = {
        SANITIZER_CBID_RESOURCE_MODULE_LOADED, SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING,
        SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC, SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE,
        SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC, SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC};
    for (size_t i = 0; i < sizeof res / sizeof res[0]; i++)
        S_SAN(sanitizerEnableCallback(1, t->sub, SANITIZER_CB_DOMAIN_RESOURCE, res[i]));
    S_SAN(sanitizerEnableCallback(1, t->sub, SANITIZER_CB_DOMAIN_LAUNCH,
                                  SANITIZER_CBID_LAUNCH_BEGIN));
    if (t->cfg.patching == GMC_TRACE_PATCH_PER_LAUNCH)
        S_SAN(sanitizerEnableCallback(1, t->sub, SANITIZER_CB_DOMAIN_LAUNCH,
                                      SANITIZER_CBID_LAUNCH_END));
    for (size_t i = 0; t->cfg.arguments && i < sizeof S_api_launches / sizeof S_api_launches[0];
         i++)
        S_SAN(sanitizerEnableCallback(1, t->sub, SANITIZER_CB_DOMAIN_DRIVER_API,
                                      S_api_launches[i]));
    return GMC_OK;
fail:
    if (t->sub)
        sanitizerUnsubscribe(t->sub);
    t->sub = NULL;
    return st;
}

gmc_status gmc_trace_detach(gmc_trace *t, gmc_error *err)
{
    gmc_status st = GMC_OK;
    if (!t || t->armed || !t->sub)
        return gmc_fail(err, GMC_ERR_ARG, "gmc_trace_detach: no tracer, inside a pass, or "
                        "detached already");
    pthread_mutex_lock(&t->lock);
    S_SAN(sanitizerUnsubscribe(t->sub));
    t->sub = NULL;
fail:
    pthread_mutex_unlock(&t->lock);
    return st;
}

gmc_status gmc_trace_attach(gmc_trace *t, gmc_error *err)
{
    if (!t || t->sub)
        return gmc_fail(err, GMC_ERR_ARG, "gmc_trace_attach: no tracer, or attached already");
    pthread_mutex_lock(&t->lock);
    gmc_status st = S_subscribe(t, err);
    pthread_mutex_unlock(&t->lock);
    return st;
}

gmc_status gmc_trace_open(const gmc_trace_config *cfg, gmc_trace **out, gmc_error *err)
{
    gmc_status st = GMC_OK;
    *out = NULL;
    if (!cfg || g_trace)
        return gmc_fail(err, GMC_ERR_ARG, "gmc_trace_open: no configuration, or a tracer is "
                        "already open in this process");
    if (cfg->table_slots < 2 || (cfg->table_slots & (cfg->table_slots - 1)) ||
        cfg->table_slots > ((size_t)1 << 30) || cfg->max_launches < 1 ||
        cfg->max_launches > GMT_MAX_LAUNCHES || cfg->shards < 1 ||
        (cfg->shards & (cfg->shards - 1)) || cfg->shards > GMT_MAX_SHARDS)
        return gmc_fail(err, GMC_ERR_ARG, "gmc_trace_open: table_slots must be a power of two "
                        "from 2 to 2^30 (got %zu), max_launches 1 to %u (got %zu), shards a "
                        "power of two from 1 to %d (got %zu)", cfg->table_slots,
                        GMT_MAX_LAUNCHES, cfg->max_launches, GMT_MAX_SHARDS, cfg->shards);
    if (cfg->patching == GMC_TRACE_PATCH_PER_LAUNCH && !cfg->on_flush)
        return gmc_fail(err, GMC_ERR_ARG, "gmc_trace_open: GMC_TRACE_PATCH_PER_LAUNCH hands "
                        "each traced launch to on_flush, which is NULL");
    gmc_trace *t = calloc(1, sizeof *t);
    if (!t)
        return gmc_fail(err, GMC_ERR_NOMEM, "out of memory");
    t->cfg = *cfg;
    /* recursive: a sanitizer call made under the lock may call back on this thread */
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&t->lock, &ma);
    pthread_mutexattr_destroy(&ma);
    t->launches = calloc(cfg->max_launches, sizeof *t->launches);
    if (!t->launches) {
        st = gmc_fail(err, GMC_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if ((st = S_subscribe(t, err)) != GMC_OK)
        goto fail;
    g_trace = t;
    *out = t;
    return GMC_OK;
fail:
    gmc_trace_close(t);
    return st;
}

gmc_status gmc_trace_begin(gmc_trace *t, gmc_error *err)
{
    gmc_status st = GMC_OK;
    if (!t || t->armed || !t->sub)
        return gmc_fail(err, GMC_ERR_ARG, "gmc_trace_begin: no tracer, a pass already open, "
                        "or detached (gmc_trace_attach first)");
    pthread_mutex_lock(&t->lock);
    t->cb_err = (gmc_error){GMC_OK, ""};
    t->n_launches = 0;
    t->untraced = 0;
    t->modules_patched = 0;
    t->reset_done = false;
    t->pass_ctx = NULL;
    t->n_inflight = 0;
    for (size_t i = 0; i < t->n_mods && st == GMC_OK &&
                       t->cfg.patching != GMC_TRACE_PATCH_PER_LAUNCH; i++)
        st = S_patch(t, &t->mods[i], err);
    if (st == GMC_OK)
        t->armed = true;
    pthread_mutex_unlock(&t->lock);
    return st;
}

/* File and line of one instruction, when the cubin carries line info. */
static void S_correlate(const S_module *m, const char *function, uint64_t pc, gm_sl_record *r)
{
    if (!m || !m->cubin)
        return;
    CUpti_GetSassToSourceCorrelationParams cp;
    memset(&cp, 0, sizeof cp);
    cp.size = CUpti_GetSassToSourceCorrelationParamsSize;
    cp.cubin = m->cubin;
    cp.cubinSize = m->cubin_size;
    cp.functionName = function;
    cp.pcOffset = pc;
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

/* Launch i of the pass keeps a copy of its module's cubin when some record
 * has no line info (the CLI disassembles it for the instructions' text) and
 * no earlier launch holds it.  Out of memory: no copy, only the text lost. */
static void S_keep_cubin(gmc_trace_pass *out, size_t i, const S_module *m)
{
    gmc_trace_launch *L = &out->launches[i];
    bool need = false;
    for (size_t j = 0; j < L->n_records && !need; j++)
        need = L->records[j].line == 0;
    if (!need || !m || !m->cubin || !m->crc)   /* the CRC names its file */
        return;
    for (size_t j = 0; j < i; j++)
        if (out->launches[j].cubin && out->launches[j].cubin_crc == m->crc)
            return;
    L->cubin = malloc(m->cubin_size);
    if (L->cubin) {
        memcpy(L->cubin, m->cubin, m->cubin_size);
        L->cubin_size = m->cubin_size;
    }
}

static int S_row_cmp(const void *pa, const void *pb)
{
    const gmc_trace_row *a = pa, *b = pb;
    if (a->pc != b->pc)
        return a->pc < b->pc ? -1 : 1;
    return (a->alloc > b->alloc) - (a->alloc < b->alloc);
}

static size_t S_key_launch(unsigned long long key)
{
    return (size_t)(key >> GMT_KEY_LAUNCH_SHIFT & 0xffffu);
}

/* In gm_sl_counter order. */
static const int S_sl_of[GM_SL_N] = {
    GMT_INST, GMT_GLOBAL_LD, GMT_GLOBAL_ST, GMT_SHARED_LD, GMT_SHARED_ST,
    GMT_SECTORS, GMT_SECTORS_IDEAL, GMT_WAVEFRONTS, GMT_WAVEFRONTS_IDEAL};

/* The table's entries as rows and records per launch. */
static gmc_status S_harvest(gmc_trace *t, const gmt_entry *tab, gmc_trace_pass *out, gmc_error *err)
{
    size_t n = t->n_launches;
    out->launches = calloc(n ? n : 1, sizeof *out->launches);
    size_t *count = calloc(n ? n : 1, sizeof *count);
    if (!out->launches || !count) {
        free(count);
        return gmc_fail(err, GMC_ERR_NOMEM, "out of memory");
    }
    out->n_launches = n;
    for (size_t s = 0; s < t->cfg.table_slots; s++)
        if (tab[s].key && S_key_launch(tab[s].key) < n)
            count[S_key_launch(tab[s].key)]++;
    for (size_t i = 0; i < n; i++) {
        gmc_trace_launch *L = &out->launches[i];
        L->function = strdup(t->launches[i].function);
        L->grid_id = t->launches[i].grid_id;
        L->function_pc = t->launches[i].fn_pc;
        L->function_size = t->launches[i].fn_size;
        /* the arguments move to the pass */
        L->params = t->launches[i].params;
        L->params_size = t->launches[i].params_size;
        L->layout = t->launches[i].layout;
        L->n_params = t->launches[i].n_params;
        t->launches[i].params = NULL;
        t->launches[i].layout = NULL;
        L->rows = calloc(count[i] ? count[i] : 1, sizeof *L->rows);
        L->records = calloc(count[i] ? count[i] : 1, sizeof *L->records);
        S_module *m = S_module_of(t, t->launches[i].mod);
        L->cubin_crc = m ? m->crc : 0;
        if (!L->function || !L->rows || !L->records) {
            free(count);
            return gmc_fail(err, GMC_ERR_NOMEM, "out of memory");
        }
    }
    for (size_t s = 0; s < t->cfg.table_slots; s++) {
        const gmt_entry *e = &tab[s];
        if (!e->key || S_key_launch(e->key) >= n)
            continue;
        const S_launch *sl = &t->launches[S_key_launch(e->key)];
        gmc_trace_launch *L = &out->launches[S_key_launch(e->key)];
        gmc_trace_row *r = &L->rows[L->n_rows++];
        unsigned a = (unsigned)(e->key >> GMT_KEY_ALLOC_SHIFT) & 0xffffu;
        r->alloc = a == GMT_ALLOC_ALL ? GMC_TRACE_ALL : a == GMT_ALLOC_NONE ? GMC_TRACE_NO_ALLOC
                                                                             : (int)a;
        /* offset from the function's start, as the key holds it (biased) */
        unsigned long long off = e->key & ((1ull << GMT_KEY_PC_BITS) - 1);
        bool inside = off >= GMT_KEY_PC_BIAS && off - GMT_KEY_PC_BIAS < sl->fn_size;
        r->pc = inside ? off - GMT_KEY_PC_BIAS : sl->fn_pc + off - GMT_KEY_PC_BIAS;
        r->outside = !inside;
        for (int k = 0; k < GMT_NC; k++)
            r->c[k] = (long long)e->c[k];
    }
    free(count);
    for (size_t i = 0; i < n; i++) {
        gmc_trace_launch *L = &out->launches[i];
        qsort(L->rows, L->n_rows, sizeof *L->rows, S_row_cmp);
        /* the shards of one (pc, allocation) are neighbours now: add them up */
        size_t kept = 0;
        for (size_t j = 0; j < L->n_rows; j++) {
            if (kept && S_row_cmp(&L->rows[kept - 1], &L->rows[j]) == 0) {
                for (int k = 0; k < GMT_NC; k++)
                    L->rows[kept - 1].c[k] += L->rows[j].c[k];
                continue;
            }
            L->rows[kept++] = L->rows[j];
        }
        L->n_rows = kept;
        for (size_t j = 0; j < kept; j++)
            if (L->rows[j].alloc == GMC_TRACE_ALL && L->rows[j].outside)
                L->pcs_outside++;
        const S_module *m = S_module_of(t, t->launches[i].mod);
        for (size_t j = 0; j < L->n_rows; j++) {
            const gmc_trace_row *r = &L->rows[j];
            if (r->alloc != GMC_TRACE_ALL)
                continue;
            gm_sl_record *rec = &L->records[L->n_records++];
            rec->function = strdup(L->function);
            if (!rec->function)
                return gmc_fail(err, GMC_ERR_NOMEM, "out of memory");
            rec->pc = r->pc;
            for (int k = 0; k < GM_SL_N; k++)
                rec->count[k] = r->c[S_sl_of[k]];
            if (!r->outside)
                S_correlate(m, L->function, r->pc, rec);
        }
        S_keep_cubin(out, i, m);
    }
    return GMC_OK;
}

typedef CUresult (*S_pfn_sync)(void);

/* Wait for the pass's launches, read the table back and harvest it into out
 * (out zeroed first; on failure the caller frees it). */
static gmc_status S_read_back(gmc_trace *t, gmc_trace_pass *out, gmc_error *err)
{
    gmc_status st = GMC_OK;
    memset(out, 0, sizeof *out);
    out->launches_untraced = t->untraced;
    out->modules_patched = t->modules_patched;
    if (!t->n_launches)
        return GMC_OK;
    S_context *c = t->pass_ctx;
    for (size_t i = 0; i < t->n_launches; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = t->launches[j].stream == t->launches[i].stream;
        if (!seen)
            S_SAN(sanitizerStreamSynchronize(t->launches[i].stream));
    }
    size_t bytes = t->cfg.table_slots * sizeof(gmt_entry);
    S_SAN(sanitizerMemcpyDeviceToHost(c->host_table, c->table, bytes, t->launches[0].stream));
    S_SAN(sanitizerMemcpyDeviceToHost(c->host_dropped, c->dropped, sizeof *c->host_dropped,
                                      t->launches[0].stream));
    out->dropped = (long long)*c->host_dropped;
    if ((st = S_harvest(t, c->host_table, out, err)) != GMC_OK)
        goto fail;
    if (t->n_pass_allocs) {
        out->allocs = malloc(t->n_pass_allocs * sizeof *out->allocs);
        if (!out->allocs) {
            st = gmc_fail(err, GMC_ERR_NOMEM, "out of memory");
            goto fail;
        }
        for (size_t i = 0; i < t->n_pass_allocs; i++)
            out->allocs[i] = (gmc_trace_alloc){t->pass_allocs[i].base, t->pass_allocs[i].size};
        out->n_allocs = t->n_pass_allocs;
    }
fail:
    return st;
}

/* PER_LAUNCH: wait for the untraced launches of patched modules, then
 * unpatch every patched module. */
static gmc_status S_unpatch_per_launch(gmc_trace *t, gmc_error *err)
{
    gmc_status st = GMC_OK;
    for (size_t i = 0; i < t->n_inflight; i++)
        S_SAN(sanitizerStreamSynchronize(t->inflight[i]));
    t->n_inflight = 0;
    for (size_t i = 0; i < t->n_mods && st == GMC_OK; i++)
        st = S_unpatch(&t->mods[i], err);
fail:
    return st;
}

/* The pass's state after it is read back (or fails): the next traced launch
 * starts a new one. */
static void S_pass_reset(gmc_trace *t)
{
    for (size_t i = 0; i < t->n_launches; i++)
        S_launch_free(&t->launches[i]);
    t->n_launches = 0;
    t->untraced = 0;
    t->modules_patched = 0;
    t->reset_done = false;
    t->pass_ctx = NULL;
}

/* PER_LAUNCH: a launch ended.  When it is one the pass traces, read the
 * pass back, hand it to on_flush, unpatch, and start afresh. */
static void S_launch_end(gmc_trace *t, const Sanitizer_LaunchData *d)
{
    if (t->cfg.patching != GMC_TRACE_PATCH_PER_LAUNCH || !t->armed)
        return;
    if (!t->n_launches) {
        /* a module patched for a chosen launch that could not be traced */
        if (t->modules_patched) {
            gmc_error e = {GMC_OK, ""};
            if (S_unpatch_per_launch(t, &e) != GMC_OK)
                S_cb_fail(t, &e);
            t->modules_patched = 0;
        }
        return;
    }
    bool ours = false;
    for (size_t i = 0; i < t->n_launches && !ours; i++)
        ours = (d->gridId && t->launches[i].grid_id == d->gridId) ||
               (d->hLaunch && t->launches[i].hlaunch == d->hLaunch);
    if (!ours)
        return;
    gmc_error e = {GMC_OK, ""}, eu = {GMC_OK, ""};
    gmc_trace_pass p;
    gmc_status st = S_read_back(t, &p, &e);
    gmc_status su = S_unpatch_per_launch(t, &eu);
    if (st == GMC_OK && su == GMC_OK && t->cfg.on_flush)
        t->cfg.on_flush(t->cfg.user, &p);
    if (st != GMC_OK)
        S_cb_fail(t, &e);
    if (su != GMC_OK)
        S_cb_fail(t, &eu);
    gmc_trace_pass_free(&p);
    S_pass_reset(t);
}

gmc_status gmc_trace_end(gmc_trace *t, gmc_trace_pass *out, gmc_error *err)
{
    gmc_status st = GMC_OK;
    memset(out, 0, sizeof *out);
    if (!t || !t->armed)
        return gmc_fail(err, GMC_ERR_ARG, "gmc_trace_end: no pass open");
    pthread_mutex_lock(&t->lock);
    t->armed = false;
    out->launches_untraced = t->untraced;
    out->modules_patched = t->modules_patched;
    if (t->cb_err.status != GMC_OK) {
        st = gmc_fail(err, t->cb_err.status, "%s", t->cb_err.message);
        goto fail;
    }
    if ((st = S_read_back(t, out, err)) != GMC_OK)
        goto fail;
    if (t->cfg.patching == GMC_TRACE_PATCH_WHILE_TRACING) {
        /* untraced kernels of patched modules may still run in other streams */
        S_pfn_sync sync = NULL;
        enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        if (cudaGetDriverEntryPointByVersion("cuCtxSynchronize", (void **)&sync, 12000,
                                             cudaEnableDefault, &q) != cudaSuccess ||
            q != cudaDriverEntryPointSuccess || !sync || sync() != CUDA_SUCCESS) {
            st = gmc_fail(err, GMC_ERR_CUDA, "cannot wait for the context before unpatching "
                          "(cuCtxSynchronize)");
            goto fail;
        }
        for (size_t i = 0; i < t->n_mods; i++)
            if ((st = S_unpatch(&t->mods[i], err)) != GMC_OK)
                goto fail;
    } else if (t->cfg.patching == GMC_TRACE_PATCH_PER_LAUNCH &&
               (st = S_unpatch_per_launch(t, err)) != GMC_OK) {
        goto fail;
    }
    S_pass_reset(t);
    pthread_mutex_unlock(&t->lock);
    return GMC_OK;
fail:
    S_pass_reset(t);
    pthread_mutex_unlock(&t->lock);
    gmc_trace_pass_free(out);
    return st;
}

void gmc_trace_pass_free(gmc_trace_pass *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_launches; i++) {
        gmc_trace_launch *L = &p->launches[i];
        free(L->function);
        gm_sl_records_free(L->records, L->n_records);
        free(L->rows);
        free(L->params);
        free(L->layout);
        free(L->cubin);
    }
    free(p->launches);
    free(p->allocs);
    memset(p, 0, sizeof *p);
}

gmc_status gmc_trace_set_patched(gmc_trace *t, bool patched, gmc_error *err)
{
    gmc_status st = GMC_OK;
    if (!t || t->armed)
        return gmc_fail(err, GMC_ERR_ARG, "gmc_trace_set_patched: no tracer, or inside a pass");
    pthread_mutex_lock(&t->lock);
    for (size_t i = 0; i < t->n_mods && st == GMC_OK; i++)
        st = patched ? S_patch(t, &t->mods[i], err) : S_unpatch(&t->mods[i], err);
    pthread_mutex_unlock(&t->lock);
    return st;
}

void gmc_trace_close(gmc_trace *t)
{
    if (!t)
        return;
    if (t->sub)
        sanitizerUnsubscribe(t->sub);
    for (size_t i = 0; i < t->n_ctxs; i++) {
        S_context *c = &t->ctxs[i];
        if (c->table)
            sanitizerFree(c->ctx, c->table);
        if (c->dropped)
            sanitizerFree(c->ctx, c->dropped);
        if (c->headers)
            sanitizerFree(c->ctx, c->headers);
        if (c->allocs)
            sanitizerFree(c->ctx, c->allocs);
        if (c->host_table)
            sanitizerFreeHost(c->ctx, c->host_table);
        if (c->host_dropped)
            sanitizerFreeHost(c->ctx, c->host_dropped);
    }
    for (size_t i = 0; i < t->n_mods; i++)
        free(t->mods[i].cubin);
    for (size_t i = 0; i < t->n_launches; i++)
        S_launch_free(&t->launches[i]);
    free(t->mods);
    free(t->inflight);
    free(t->ctxs);
    free(t->live);
    free(t->launches);
    free(t->pass_allocs);
    pthread_mutex_destroy(&t->lock);
    if (g_trace == t)
        g_trace = NULL;
    free(t);
}

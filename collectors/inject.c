/* inject.c — build/libgpumem-inject.so: profiles the kernel launches of an
 * unmodified CUDA program.  `gpumem-report -- PROGRAM` (cli/cmd_app.c)
 * sets CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH to this library and
 * GPUMEM_REPORT_* to the options (inject.h); the CUDA driver calls
 * InitializeInjection at cuInit, NVTX calls InitializeInjectionNvtx2 at the
 * program's first NVTX call.
 *
 * How a launch is profiled, and why this way.  The range profiler replays a
 * launch once per pass (5 passes for the default metrics on GH100), and a
 * program's kernels are not idempotent (x[i] += y[i]), so each pass must start
 * from the memory the launch found.  Two ways CUPTI offers:
 *   - kernel replay: CUPTI saves and restores the memory itself, inside the
 *     launch.  It would need a second profiler path beside the collector's,
 *     and gives no place to flush L2 between its passes.
 *   - user replay with a checkpoint (chosen): at the driver's launch callback
 *     (API enter, before the program's launch is enqueued) the library waits
 *     for the program's earlier work (cuCtxSynchronize), saves every device
 *     allocation of the context with cuptiCheckpointSave, and profiles the
 *     launch with the suite's own collector (gm_collector.h, one launch per
 *     batch): each pass restores the checkpoint (prepare), flushes L2 and
 *     relaunches the same function with the same arguments through the same
 *     driver entry point.  Then it restores the checkpoint once more and
 *     returns: the driver enqueues the program's own launch on memory exactly
 *     as the program left it.  The counters are then the suite's (same flush,
 *     same auto range, same metric names), and the program sees one launch.
 * Correctness first: if the checkpoint cannot be saved, nothing is replayed
 * (the launch is counted as failed, with the reason); if a restore fails, the
 * library says so on stderr and profiles nothing more.  The checkpoint covers
 * device allocations and pinned host memory (cupti_checkpoint.h); memory the
 * kernel reaches otherwise (managed memory the driver migrates, memory of
 * other processes) is not restored — the GPU test checks the program's output
 * and exit status with and without the tool.
 *
 * CUDA graphs (inject_graph.c): a launch captured into a graph runs nothing
 * then (counted as captured, not as a launch); the graph is recorded when it
 * is instantiated, and each of its launches counts its kernel nodes as
 * launches, replayed node by node from the memory the graph's launch finds
 * (as `ncu --graph-profiling node`).  Kernels that cannot be replayed
 * (collectives, which wait on other GPUs: gmi_noreplay_match) end the batch
 * and run once, timed (inject_timed.c), as do graphs that cannot be replayed
 * node by node.
 *
 * What is not profiled (counted, and said in the report): launches in a
 * context other than the device's primary context (the collector profiles
 * that one), launches after the program destroyed that context, and launches
 * by entry points the library cannot replay (cuLaunchGrid and other
 * pre-CUDA-4 forms).
 *
 * Library code inside someone else's process: never exits, never writes to
 * stdout; stderr only for errors, prefixed "gpumem-report:", once each.
 * Files are written through a temporary file and rename (results.h,
 * S_write_atomic in inject_session.c), so the CLI never reads half a file.
 *
 * This file holds the entry and the driver-API callback, which decides for
 * each call whether the open batch goes on; inject_internal.h lists the
 * library's other files and what each does.
 */
#include "gm_collector.h"
#include "gmc_codes.h"
#include "gmc_sass.h"
#include "inject.h"
#include "inject_internal.h"

#include "../core/buf.h"
#include "../core/devlock.h"
#include "../core/results.h"

#include <cuda.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- state ------------------------------------------------------------------ */

struct gmi_state gmi = {.lock = PTHREAD_MUTEX_INITIALIZER, .devlock = GM_DEVLOCK_INIT};

_Thread_local int gmi_busy;             /* inside our own work: ignore launches */
static _Thread_local int t_rt_pending;  /* a runtime launch that has not reached the driver */
static _Thread_local long long t_timed = -1; /* the timed launch whose call is in progress */

/* ---- the driver-API callback -------------------------------------------------------- */

/* The memory type of an address: host (pageable memory, which the driver does
 * not know, or host-allocated) or device (device or managed allocation). */
static bool S_is_host(CUdeviceptr p)
{
    unsigned type = 0;
    CUresult r = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p);
    return r == CUDA_ERROR_INVALID_VALUE || (r == CUDA_SUCCESS && type == CU_MEMORYTYPE_HOST);
}

static bool S_is_device(CUdeviceptr p)
{
    unsigned type = 0, managed = 0;
    if (cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) != CUDA_SUCCESS ||
        type != CU_MEMORYTYPE_DEVICE)
        return false;
    /* managed memory moves between host and device: not within a checkpoint */
    return cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p) == CUDA_SUCCESS &&
           !managed;
}

/* A driver call (not a launch) at its entry: end the open batch unless the
 * call cannot change device memory, or is a memset or copy the batch can
 * make again. */
static void S_on_driver_call(const CUpti_CallbackData *cb)
{
    const char *shares = gmi_api_shares_memory(cb->functionName);
    if (shares) {   /* from now on another process may write this one's memory */
        char why[160];
        snprintf(why, sizeof why, "this process shared memory with other processes or GPUs "
                 "(%s)", shares);
        pthread_mutex_lock(&gmi.lock);
        gmi_busy = 1;
        gmi_memory_shared(why);
        gmi_busy = 0;
        pthread_mutex_unlock(&gmi.lock);
    }
    if (__atomic_load_n(&gmi.n_pending, __ATOMIC_ACQUIRE) == 0)
        return;
    const char *name = cb->functionName ? cb->functionName : "?";
    if (gmi_api_keeps_batch(name))
        return;
    gmi_busy = 1;
    gmi_op_kind op = gmi_api_replayable(name);
    if (gmi_api_is_generic_copy(name) && cb->functionParams) {
        /* cuMemcpy(dst, src, n) and cuMemcpyAsync(dst, src, n, stream): to the
         * host changes nothing; device to device is made again */
        const gmi_copy_params *a = cb->functionParams;
        bool dst_host = S_is_host(a->dst);
        if (dst_host) {
            gmi_busy = 0;
            return;
        }
        if (S_is_device(a->dst) && S_is_device(a->src))
            op = GMI_OP_COPY_DTOD;
    }
    pthread_mutex_lock(&gmi.lock);
    if (!(op != GMI_OP_NONE && gmi.n_pending && cb->functionParams &&
          gmi_op_record(op, cb->functionParams)))
        gmi_batch_end(name);
    pthread_mutex_unlock(&gmi.lock);
    gmi_busy = 0;
}

/* A launch chosen for profiling: into the batch (true), or false when it must
 * be profiled on its own, now (gmi_profile), its arguments being uncopyable. */
static bool S_batch_try(const gmi_launch *L, const char *symbol, long long index, CUcontext ctx)
{
    if (!gmi_session_open(ctx)) {
        gmi.status.failed++;
        return true;
    }
    if (gmi.ctx_dead || ctx != gmi.ctx)
        return false;   /* gmi_profile says why it is not profiled */
    if (gmi_batch_add(L, symbol, index, ctx))
        return true;
    gmi_batch_end("a launch whose arguments cannot be copied");
    return false;
}

static void S_on_driver_launch(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    t_rt_pending = 0;   /* the runtime launch around this one reached the driver */
    pthread_mutex_lock(&gmi.lock);
    gmi_launch L;
    const char *symbol = cb->symbolName ? cb->symbolName : "?";
    if (!gmi_describe(cbid, cb->functionParams, &L)) {
        gmi.status.launches++;
        gmi.status.not_profilable++;
        char why[256];
        snprintf(why, sizeof why,
                 "launches through %s are not profiled (only cuLaunchKernel, cuLaunchKernelEx, "
                 "cuLaunchCooperativeKernel and the runtime's launches)",
                 cb->functionName ? cb->functionName : "an old entry point");
        gmi_note(why);
        goto done;
    }
    /* Captured into a graph: nothing runs now (its kernel counts when the
     * graph runs), and synchronizing would break the capture. */
    CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult cr = L.ptsz ? cuStreamIsCapturing_ptsz(L.stream, &cs)
                         : cuStreamIsCapturing(L.stream, &cs);
    if (cr == CUDA_SUCCESS && cs != CU_STREAM_CAPTURE_STATUS_NONE) {
        gmi.status.captured++;
        goto done;
    }
    long long index = gmi.status.launches++;
    if (cr != CUDA_SUCCESS) {
        gmi.status.not_profilable++;
        gmi_note("launches on a stream whose capture state the driver did not give are not "
                 "profiled");
        goto done;
    }
    char *name = gmi_demangle(symbol);
    gmi_decision d = gmi_filter_next(&gmi.filter, name);
    const char *never = d == GMI_PROFILE ? gmi_noreplay_match(&gmi.noreplay, name) : NULL;
    bool first_refusal =
        d == GMI_SKIP_DONE && gmi.filter.limit_reached && !gmi.status.limit_reached;
    gmi_debug("launch %lld %s: %s", index, name,
              d == GMI_PROFILE ? "profile" : d == GMI_SKIP_FILTER ? "filtered out"
                                           : d == GMI_SKIP_BEFORE ? "skipped" : "past the count");
    if (d == GMI_PROFILE && !gmi.stopped && (never || gmi.shared[0])) {
        gmi_busy = 1;
        t_timed = gmi_timed_launch(&L, symbol, index, cb->context, never ? never : gmi.shared,
                                   never != NULL);
        if (never) {   /* the others it waits on write into this process's memory */
            char why[160];
            snprintf(why, sizeof why, "this process ran a collective (%s)", never);
            gmi_memory_shared(why);
        }
        gmi_busy = 0;
    } else if (d == GMI_PROFILE && !gmi.stopped) {
        gmi_busy = 1;
        gmi_capture_launch(&L, symbol, name, index, cb->context);
        if (!S_batch_try(&L, symbol, index, cb->context))
            gmi_profile(&L, symbol, index, cb->context);
        gmi_busy = 0;
    } else if (d == GMI_PROFILE) {
        gmi.status.failed++;
    } else if (gmi.n_pending) {
        /* it changes memory the batch's replays would not see changed */
        gmi_busy = 1;
        gmi_batch_end("a launch that is not profiled");
        gmi_busy = 0;
    }
    if (first_refusal) {
        gmi.status.limit_reached = true;
        gmi_write_status();
    }
    free(name);
done:
    pthread_mutex_unlock(&gmi.lock);
}

/* A driver call at its exit: the end of a timed launch (its second event),
 * or a graph instantiated or changed (recorded again). */
static void S_on_driver_exit(CUpti_CallbackId cbid, const CUpti_CallbackData *cb,
                             bool graph_launch)
{
    bool ok = cb->functionReturnValue && *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS;
    if (t_timed >= 0 && (graph_launch || gmc_is_launch_callback(CUPTI_CB_DOMAIN_DRIVER_API, cbid))) {
        pthread_mutex_lock(&gmi.lock);
        gmi_busy = 1;
        gmi_timed_end(t_timed, ok);
        gmi_busy = 0;
        pthread_mutex_unlock(&gmi.lock);
        t_timed = -1;
        return;
    }
    gmi_graph_call gc = gmi_api_graph_call(cb->functionName);
    if (!ok || gc == GMI_GRAPH_CALL_NONE || gc == GMI_GRAPH_CALL_DESTROY)
        return;
    pthread_mutex_lock(&gmi.lock);
    gmi_busy = 1;
    gmi_graph_on_call(gc, cb);
    gmi_busy = 0;
    pthread_mutex_unlock(&gmi.lock);
}

static void CUPTIAPI S_callback(void *user, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
                                const void *data)
{
    (void)user;
    if (dom == CUPTI_CB_DOMAIN_RESOURCE) {
        const CUpti_ResourceData *rd = data;
        if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED && rd && rd->resourceDescriptor) {
            /* not under gmi.lock: modules load inside calls made with it held */
            const CUpti_ModuleResourceData *m = rd->resourceDescriptor;
            gmi_capture_module(m->pCubin, m->cubinSize);
            return;
        }
        if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING && rd && gmi.ctx &&
            rd->context == gmi.ctx) {
            /* The session's context is going away (cudaDeviceReset, exit): the
             * session is left alone, not closed, and used no more. */
            pthread_mutex_lock(&gmi.lock);
            gmi_busy = 1;
            if (gmi.n_pending)   /* normally ended already, at the call that destroys it */
                gmi_batch_end("the context's destruction");
            gmi_timed_collect(5.0);
            gmi_graph_forget_all();
            gmi_busy = 0;
            gmi.ctx_dead = true;
            pthread_mutex_unlock(&gmi.lock);
        }
        return;
    }
    const CUpti_CallbackData *cb = data;
    if (!cb || gmi_busy)
        return;
    bool graph_launch = cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
                        cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_EXIT) {
        S_on_driver_exit(cbid, cb, graph_launch);
        return;
    }
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_ENTER &&
        !gmc_is_launch_callback(dom, cbid))
        S_on_driver_call(cb);   /* may end the open batch */
    if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
        if (cb->callbackSite == CUPTI_API_ENTER) {
            t_rt_pending = 1;
        } else if (t_rt_pending) {
            t_rt_pending = 0;
            /* A runtime launch that succeeded without a driver launch under it. */
            if (cb->functionReturnValue && *(const int *)cb->functionReturnValue == 0) {
                pthread_mutex_lock(&gmi.lock);
                gmi.status.runtime_only++;
                gmi_note("runtime launches the driver callbacks did not show were not profiled");
                pthread_mutex_unlock(&gmi.lock);
            }
        }
        gmi_debug("runtime %s %s (cbid %u)", cb->callbackSite == CUPTI_API_ENTER ? "enter" : "exit",
                  cb->functionName ? cb->functionName : "?", (unsigned)cbid);
        return;
    }
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_ENTER &&
        graph_launch) {
        /* the kernels of a graph run without a launch callback each: its
         * kernel nodes, recorded at instantiation (inject_graph.c) */
        pthread_mutex_lock(&gmi.lock);
        gmi_busy = 1;
        t_timed = gmi_graph_launch(cbid, cb);
        gmi_busy = 0;
        pthread_mutex_unlock(&gmi.lock);
        return;
    }
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_ENTER) {
        gmi_graph_call gc = gmi_api_graph_call(cb->functionName);
        if (gc == GMI_GRAPH_CALL_DESTROY) {   /* at the entry: the handle is still good */
            pthread_mutex_lock(&gmi.lock);
            gmi_graph_on_call(gc, cb);
            pthread_mutex_unlock(&gmi.lock);
            return;
        }
    }
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API && gmc_is_launch_callback(dom, cbid) &&
        cb->callbackSite == CUPTI_API_ENTER) {
        gmi_debug("driver enter %s (cbid %u) %s", cb->functionName ? cb->functionName : "?",
                  (unsigned)cbid, cb->symbolName ? cb->symbolName : "");
        S_on_driver_launch(cbid, cb);
    }
}

/* ---- entry -------------------------------------------------------------------------------- */

static const char *S_getenv(const char *name, void *ctx)
{
    (void)ctx;
    return getenv(name);
}

/* The first CUDA process of the tree claims the directory; later ones (children
 * of the program) leave a marker and are not profiled. */
static bool S_claim(void)
{
    char *owner = gmi_path(GMI_FILE_OWNER);
    int fd = open(owner, O_WRONLY | O_CREAT | O_EXCL, 0600);
    free(owner);
    if (fd < 0) {
        gm_buf b = GM_BUF_INIT;
        gm_buf_printf(&b, "%s/other.%ld", gmi.opts.dir, (long)getpid());
        int o = open(b.data, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (o >= 0)
            close(o);
        gm_buf_free(&b);
        return false;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    ssize_t w = write(fd, pid, (size_t)n);
    (void)w;
    close(fd);
    return true;
}

static bool S_subscribe(void)
{
    CUptiResult r = cuptiSubscribe(&gmi.sub, S_callback, NULL);
    if (r != CUPTI_SUCCESS) {
        const char *d = NULL;
        (void)cuptiGetResultString(r, &d);
        gmi_error("profiler", "cannot subscribe to CUPTI callbacks (%s)%s", d ? d : "?",
                  r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                      ? ": another tool (Nsight Systems, Nsight Compute, a tracer) is attached"
                      : "");
        return false;
    }
    /* graph launches: S_callback (the domain below enables them too) */
    static const CUpti_CallbackId graph[] = {
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    };
    bool ok = true;
    for (size_t k = 0; k < gmc_n_launch_callbacks; k++)
        ok &= cuptiEnableCallback(1, gmi.sub, gmc_launch_callbacks[k].domain,
                                  gmc_launch_callbacks[k].cbid) == CUPTI_SUCCESS;
    for (size_t k = 0; k < sizeof graph / sizeof graph[0]; k++)
        ok &= cuptiEnableCallback(1, gmi.sub, CUPTI_CB_DOMAIN_DRIVER_API, graph[k]) ==
              CUPTI_SUCCESS;
    /* every driver call: those that could change device memory end a batch */
    ok &= cuptiEnableDomain(1, gmi.sub, CUPTI_CB_DOMAIN_DRIVER_API) == CUPTI_SUCCESS;
    ok &= cuptiEnableCallback(1, gmi.sub, CUPTI_CB_DOMAIN_RESOURCE,
                              CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) == CUPTI_SUCCESS;
    /* the cubins a kept launch needs (inject_replay.c) */
    if (gmi.opts.capture)
        ok &= cuptiEnableCallback(1, gmi.sub, CUPTI_CB_DOMAIN_RESOURCE,
                                  CUPTI_CBID_RESOURCE_MODULE_LOADED) == CUPTI_SUCCESS;
    if (!ok) {
        gmi_error("profiler", "cannot enable CUPTI's launch callbacks");
        (void)cuptiUnsubscribe(gmi.sub);
        gmi.sub = NULL;
        return false;
    }
    return true;
}

/* The per-source-line pass: symbol (mangled) names the target kernel? */
static bool S_sass_match(const char *symbol, const char *target)
{
    if (strcmp(symbol, target) == 0)
        return true;
    char *name = gmi_demangle(symbol);
    bool same = name && strcmp(name, target) == 0;
    free(name);
    return same;
}

/* Called by the CUDA driver inside cuInit.  Returns 1 whatever happens: a
 * failure here must not stop the program; it is written to the status file
 * and said once on stderr. */
GMI_EXPORT int InitializeInjection(void)
{
    static int once;
    if (once++)
        return 1;
    if (getenv(GMI_ENV_TRACE_OUT)) {   /* the tracer alone (inject_trace.c) */
        gmi_trace_start();
        return 1;
    }
    const char *sass_kernel = getenv(GMI_ENV_SASS_KERNEL), *sass_out = getenv(GMI_ENV_SASS_OUT);
    if (sass_kernel && sass_out) {
        (void)gmc_sass_inject_start(sass_kernel, sass_out, S_sass_match);
        return 1;
    }
    char msg[512];
    if (!gmi_opts_parse(S_getenv, NULL, &gmi.opts, msg, sizeof msg)) {
        if (gmi.opts.dir) {   /* the CLI is listening: say it where it looks */
            gmi_error("options", "%s", msg);
            gmi_write_status();
        } else {
            fprintf(stderr, "gpumem-report: %s\n", msg);
        }
        return 1;
    }
    if (!S_claim())
        return 1;
    gmi.status.loaded = true;
    gmi.status.pid = (long long)getpid();
    gm_results_init(&gmi.results);
    if (!gmi_filter_init(&gmi.filter, &gmi.opts, msg, sizeof msg)) {
        gmi_error("options", "%s", msg);
        gmi_write_status();
        return 1;
    }
    gmi.status.limit = gmi.filter.count;
    if (!gmi_noreplay_init(&gmi.noreplay, gmi.opts.no_replay, msg, sizeof msg)) {
        gmi_error("options", "%s", msg);
        gmi_write_status();
        return 1;
    }
    (void)S_subscribe();   /* on failure the status says why; nothing is profiled */
    gmi_write_status();
    if (atexit(gmi_at_exit) != 0)
        gmi_error("io", "atexit failed: the last counts may be missing");
    gmi.active = true;
    gmi_debug("loaded in process %ld", (long)getpid());
    return 1;
}

/* inject_graph.c — CUDA graphs (inject.h, "CUDA graphs"): each instance
 * recorded when the program instantiates it, and its launches.
 *
 * At the exit of cuGraphInstantiate (every form) the graph's nodes are
 * walked in a topological order (gmi_graph_order), child graphs in place;
 * each kernel node's launch is copied as a batch copies a launch
 * (gmi_pending_copy: the arguments by the sizes the driver gives, so the copy
 * outlives the graph, which PyTorch destroys once instantiated), each memset
 * and copy node kept as a batch operation.  A node of another kind (a host
 * function, a memory allocation, a wait on a value...) or a kernel that cannot
 * be replayed (gmi_noreplay_match) makes the instance one that is timed whole.
 * cuGraphExecUpdate records the instance again from the new graph,
 * cuGraphExecKernelNodeSetParams replaces one node's copy, any other change
 * to an instance's nodes makes it one that is timed whole.
 *
 * At the entry of cuGraphLaunch (the open batch already ended: the call is not
 * one that keeps a batch) each kernel node counts as a launch and goes
 * through the filters, with its own name; the nodes up to the last one
 * selected are replayed one by one from the memory the launch finds
 * (gmi_graph_replay), and the program's launch then runs on that memory,
 * restored.  Called with gmi.lock held.
 */
#include "inject.h"
#include "inject_internal.h"

#include "../core/buf.h"

#include <cuda.h>
#include <cupti_driver_cbid.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The parameters of the calls handled here, as generated_cuda_meta.h declares
 * them: every cuGraphInstantiate form starts with these two, every call that
 * changes an instance with the instance. */
typedef struct {
    CUgraphExec *phGraphExec;
    CUgraph hGraph;
} S_instantiate_params;
typedef struct {
    CUgraphExec hGraphExec;
    CUgraph hGraph;
} S_update_params;
typedef struct {
    CUgraphExec hGraphExec;
    CUgraphNode hNode;
    const CUDA_KERNEL_NODE_PARAMS *nodeParams;   /* _v1 (no kern, ctx) for the first form */
} S_kernel_params_params;
typedef struct {
    CUgraphExec hGraphExec;
    CUstream hStream;
} S_launch_params;

/* ---- the instances ---------------------------------------------------------------- */

static struct gmi_graph *S_find(CUgraphExec exec)
{
    for (size_t i = 0; i < gmi.n_graphs; i++)
        if (gmi.graphs[i].exec == exec)
            return &gmi.graphs[i];
    return NULL;
}

static void S_clear(struct gmi_graph *g)
{
    for (size_t i = 0; i < g->n_kernels; i++) {
        free(g->symbols[i]);
        if (g->kernels)
            gmi_pending_free(&g->kernels[i]);
    }
    free(g->symbols);
    free(g->nodes);
    free(g->kernels);
    free(g->ops);
    free(g->refusal);
    CUgraphExec exec = g->exec;
    long long id = g->id;
    memset(g, 0, sizeof *g);
    g->exec = exec;
    g->id = id;
}

static void S_remove(struct gmi_graph *g)
{
    S_clear(g);
    size_t i = (size_t)(g - gmi.graphs);
    memmove(&gmi.graphs[i], &gmi.graphs[i + 1], (gmi.n_graphs - i - 1) * sizeof *gmi.graphs);
    gmi.n_graphs--;
}

void gmi_graph_forget_all(void)
{
    while (gmi.n_graphs)
        S_remove(&gmi.graphs[gmi.n_graphs - 1]);
}

static void S_refuse(struct gmi_graph *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The first reason the instance cannot be replayed node by node: its copies
 * are dropped, the names kept. */
static void S_refuse(struct gmi_graph *g, const char *fmt, ...)
{
    if (g->refusal)
        return;
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    g->refusal = gm_xstrdup(why);
    if (g->kernels) {
        for (size_t i = 0; i < g->n_kernels; i++)
            gmi_pending_free(&g->kernels[i]);
        free(g->kernels);
        g->kernels = NULL;
    }
    g->n_ops = 0;
}

static char *S_short(const char *symbol)
{
    char *d = gmi_demangle(symbol);
    char *s = gmi_short_name(d);
    free(d);
    return s;
}

/* ---- the walk ----------------------------------------------------------------------- */

static void S_push_kernel(struct gmi_graph *g, CUgraphNode node, const char *symbol)
{
    size_t n = g->n_kernels;
    g->symbols = gm_xrealloc(g->symbols, (n + 1) * sizeof *g->symbols);
    g->nodes = gm_xrealloc(g->nodes, (n + 1) * sizeof *g->nodes);
    g->symbols[n] = gm_xstrdup(symbol ? symbol : "?");
    g->nodes[n] = node;
    if (!g->refusal) {
        g->kernels = gm_xrealloc(g->kernels, (n + 1) * sizeof *g->kernels);
        memset(&g->kernels[n], 0, sizeof g->kernels[n]);
    }
    g->n_kernels = n + 1;
}

/* The launch of kernel node params kp (its attributes from node, when a
 * node is given, else those of `like`), copied into *p; false (gmi.copy_fail
 * says why) when it cannot be. */
static bool S_copy_kernel(struct gmi_pending *p, CUfunction f, const CUDA_KERNEL_NODE_PARAMS *kp,
                          CUgraphNode node, const struct gmi_pending *like)
{
    gmi_launch L;
    memset(&L, 0, sizeof L);
    L.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
    L.f = f;
    L.grid[0] = kp->gridDimX, L.grid[1] = kp->gridDimY, L.grid[2] = kp->gridDimZ;
    L.block[0] = kp->blockDimX, L.block[1] = kp->blockDimY, L.block[2] = kp->blockDimZ;
    L.shm = kp->sharedMemBytes;
    L.params = kp->kernelParams;
    L.extra = kp->extra;
    /* the attributes a replay needs to run as the node does: a cluster shape
     * set at launch (not one compiled in) and a cooperative launch */
    CUlaunchAttribute attrs[2];
    unsigned na = 0;
    if (node) {
        CUkernelNodeAttrValue v;
        int required = 0;
        if (cuFuncGetAttribute(&required, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, f) !=
            CUDA_SUCCESS)
            required = 0;
        memset(&v, 0, sizeof v);
        if (required == 0 &&
            cuGraphKernelNodeGetAttribute(node, CU_KERNEL_NODE_ATTRIBUTE_CLUSTER_DIMENSION, &v) ==
                CUDA_SUCCESS &&
            (unsigned long long)v.clusterDim.x * v.clusterDim.y * v.clusterDim.z > 1) {
            memset(&attrs[na], 0, sizeof attrs[na]);
            attrs[na].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            attrs[na++].value = v;
        }
        memset(&v, 0, sizeof v);
        if (cuGraphKernelNodeGetAttribute(node, CU_KERNEL_NODE_ATTRIBUTE_COOPERATIVE, &v) ==
                CUDA_SUCCESS &&
            v.cooperative) {
            memset(&attrs[na], 0, sizeof attrs[na]);
            attrs[na].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
            attrs[na++].value = v;
        }
    }
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    if (na || (like && like->L.config)) {
        cfg.gridDimX = L.grid[0], cfg.gridDimY = L.grid[1], cfg.gridDimZ = L.grid[2];
        cfg.blockDimX = L.block[0], cfg.blockDimY = L.block[1], cfg.blockDimZ = L.block[2];
        cfg.sharedMemBytes = L.shm;
        cfg.attrs = na ? attrs : like->attrs;
        cfg.numAttrs = na ? na : like->config.numAttrs;
        L.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx;
        L.config = &cfg;
    }
    return gmi_pending_copy(p, &L);
}

static CUfunction S_function(const CUDA_KERNEL_NODE_PARAMS *kp, bool v2)
{
    CUfunction f = kp->func;
    if (!f && v2 && kp->kern && cuKernelGetFunction(&f, kp->kern) != CUDA_SUCCESS)
        f = NULL;
    return f;
}

static void S_kernel_node(struct gmi_graph *g, CUgraphNode node)
{
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    CUfunction f = NULL;
    const char *symbol = NULL;
    if (cuGraphKernelNodeGetParams(node, &kp) == CUDA_SUCCESS)
        f = S_function(&kp, true);
    if (f && cuFuncGetName(&symbol, f) != CUDA_SUCCESS)
        symbol = NULL;
    S_push_kernel(g, node, symbol);
    size_t k = g->n_kernels - 1;
    if (!f) {
        S_refuse(g, "the driver did not give kernel node %zu's function", k + 1);
        return;
    }
    char *name = gmi_demangle(g->symbols[k]);
    const char *why = gmi_noreplay_match(&gmi.noreplay, name);
    free(name);
    if (why) {
        char *s = S_short(g->symbols[k]);
        S_refuse(g, "it holds a kernel that cannot be replayed (%s: %s)", s, why);
        free(s);
    }
    if (g->refusal)
        return;
    struct gmi_pending *p = &g->kernels[k];
    if (!S_copy_kernel(p, f, &kp, node, NULL)) {
        char *s = S_short(g->symbols[k]);
        S_refuse(g, "the arguments of its kernel %s cannot be copied (%s)", s, gmi.copy_fail);
        free(s);
        return;
    }
    p->symbol = gm_xstrdup(g->symbols[k]);
    p->index = -1;
}

static void S_push_op(struct gmi_graph *g, struct gmi_op o)
{
    if (g->refusal)
        return;
    if (g->n_ops == g->cap_ops) {
        g->cap_ops = g->cap_ops ? 2 * g->cap_ops : 8;
        g->ops = gm_xrealloc(g->ops, g->cap_ops * sizeof *g->ops);
    }
    o.before = g->n_kernels;   /* made again before the next kernel node */
    g->ops[g->n_ops++] = o;
}

static void S_memset_node(struct gmi_graph *g, CUgraphNode node)
{
    CUDA_MEMSET_NODE_PARAMS mp;
    memset(&mp, 0, sizeof mp);
    size_t n = 0;
    gmi_op_kind k = GMI_OP_NONE;
    if (cuGraphMemsetNodeGetParams(node, &mp) == CUDA_SUCCESS)
        k = gmi_memset_op(mp.elementSize, mp.width, mp.height, mp.pitch, &n);
    if (k == GMI_OP_NONE) {
        S_refuse(g, "it holds a memset node the tool does not make again (2-D, or its "
                    "parameters unknown)");
        return;
    }
    struct gmi_op o = {k, mp.dst, 0, mp.value, n, 0};
    S_push_op(g, o);
}

/* An address of a copy's end is device memory (not managed: that moves). */
static bool S_device_end(CUmemorytype type, CUdeviceptr p)
{
    if (type == CU_MEMORYTYPE_DEVICE)
        return true;
    if (type != CU_MEMORYTYPE_UNIFIED)
        return false;
    unsigned t = 0, managed = 0;
    return cuPointerGetAttribute(&t, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) == CUDA_SUCCESS &&
           t == CU_MEMORYTYPE_DEVICE &&
           cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p) == CUDA_SUCCESS &&
           !managed;
}

static void S_memcpy_node(struct gmi_graph *g, CUgraphNode node)
{
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    if (cuGraphMemcpyNodeGetParams(node, &c) != CUDA_SUCCESS) {
        S_refuse(g, "it holds a copy node whose parameters the driver did not give");
        return;
    }
    gmi_copy_shape sh = {c.srcMemoryType == CU_MEMORYTYPE_ARRAY,
                         c.dstMemoryType == CU_MEMORYTYPE_ARRAY,
                         c.srcY, c.srcZ, c.dstY, c.dstZ, c.WidthInBytes, c.Height, c.Depth};
    if (!gmi_copy_is_1d(&sh)) {
        S_refuse(g, "it holds a 2-D or 3-D copy node, or one with a CUDA array");
        return;
    }
    CUdeviceptr src = (c.srcMemoryType == CU_MEMORYTYPE_HOST ? (CUdeviceptr)(uintptr_t)c.srcHost
                                                             : c.srcDevice) + c.srcXInBytes;
    CUdeviceptr dst = (c.dstMemoryType == CU_MEMORYTYPE_HOST ? (CUdeviceptr)(uintptr_t)c.dstHost
                                                             : c.dstDevice) + c.dstXInBytes;
    bool dtod = S_device_end(c.srcMemoryType, src) && S_device_end(c.dstMemoryType, dst);
    struct gmi_op o = {dtod ? GMI_OP_COPY_DTOD : GMI_OP_COPY_ANY, dst, src, 0, c.WidthInBytes, 0};
    S_push_op(g, o);
}

static gmi_node_kind S_kind(CUgraphNodeType t)
{
    switch (t) {
    case CU_GRAPH_NODE_TYPE_KERNEL: return GMI_NODE_KERNEL;
    case CU_GRAPH_NODE_TYPE_MEMCPY: return GMI_NODE_MEMCPY;
    case CU_GRAPH_NODE_TYPE_MEMSET: return GMI_NODE_MEMSET;
    case CU_GRAPH_NODE_TYPE_HOST: return GMI_NODE_HOST;
    case CU_GRAPH_NODE_TYPE_GRAPH: return GMI_NODE_GRAPH;
    case CU_GRAPH_NODE_TYPE_EMPTY: return GMI_NODE_EMPTY;
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD: return GMI_NODE_EVENT;
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL:
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT: return GMI_NODE_SEMAPHORE;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: return GMI_NODE_MEM_ALLOC;
    case CU_GRAPH_NODE_TYPE_MEM_FREE: return GMI_NODE_MEM_FREE;
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP: return GMI_NODE_MEMOP;
    case CU_GRAPH_NODE_TYPE_CONDITIONAL: return GMI_NODE_CONDITIONAL;
    default: return GMI_NODE_OTHER;
    }
}

typedef struct {
    CUgraphNode node;
    size_t i;
} S_index;

static int S_index_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const S_index *)a)->node, y = (uintptr_t)((const S_index *)b)->node;
    return x < y ? -1 : x > y;
}

/* Node i's dependencies as indices, appended to *deps; false when the driver
 * would not say them or one is not a node of this graph. */
static bool S_deps(CUgraphNode node, const S_index *idx, size_t n, size_t **deps, size_t *nd,
                   size_t *cap)
{
    size_t k = 0;
    if (cuGraphNodeGetDependencies(node, NULL, NULL, &k) != CUDA_SUCCESS)
        return false;
    if (k == 0)
        return true;
    CUgraphNode *d = gm_xcalloc(k, sizeof *d);
    CUgraphEdgeData *ed = gm_xcalloc(k, sizeof *ed);
    bool ok = cuGraphNodeGetDependencies(node, d, ed, &k) == CUDA_SUCCESS;
    for (size_t j = 0; ok && j < k; j++) {
        S_index key = {d[j], 0};
        const S_index *hit = bsearch(&key, idx, n, sizeof *idx, S_index_cmp);
        ok = hit != NULL;
        if (!ok)
            break;
        if (*nd == *cap) {
            *cap = *cap ? 2 * *cap : 64;
            *deps = gm_xrealloc(*deps, *cap * sizeof **deps);
        }
        (*deps)[(*nd)++] = hit->i;
    }
    free(d);
    free(ed);
    return ok;
}

static void S_walk(struct gmi_graph *g, CUgraph graph, int depth);

static void S_node(struct gmi_graph *g, CUgraphNode node, int depth)
{
    CUgraphNodeType t;
    if (cuGraphNodeGetType(node, &t) != CUDA_SUCCESS) {
        S_refuse(g, "the driver did not give the kind of one of its nodes");
        return;
    }
    gmi_node_kind k = S_kind(t);
    switch (k) {
    case GMI_NODE_KERNEL:
        S_kernel_node(g, node);
        return;
    case GMI_NODE_MEMSET:
        S_memset_node(g, node);
        return;
    case GMI_NODE_MEMCPY:
        S_memcpy_node(g, node);
        return;
    case GMI_NODE_GRAPH: {
        CUgraph child = NULL;
        if (cuGraphChildGraphNodeGetGraph(node, &child) != CUDA_SUCCESS || !child)
            S_refuse(g, "the driver did not give one of its child graphs");
        else
            S_walk(g, child, depth + 1);
        return;
    }
    default: {
        const char *why = gmi_node_refusal(k);
        if (why)
            S_refuse(g, "it holds %s", why);
        return;
    }
    }
}

/* Every node of graph, in a topological order, into g. */
static void S_walk(struct gmi_graph *g, CUgraph graph, int depth)
{
    if (depth > 16) {
        S_refuse(g, "its child graphs nest more than 16 deep");
        return;
    }
    size_t n = 0;
    if (cuGraphGetNodes(graph, NULL, &n) != CUDA_SUCCESS) {
        S_refuse(g, "the driver did not list its nodes");
        return;
    }
    if (n == 0)
        return;
    CUgraphNode *nodes = gm_xcalloc(n, sizeof *nodes);
    S_index *idx = gm_xcalloc(n, sizeof *idx);
    size_t *start = gm_xcalloc(n + 1, sizeof *start), *order = gm_xcalloc(n, sizeof *order);
    size_t *deps = NULL, nd = 0, cap = 0;
    bool ok = cuGraphGetNodes(graph, nodes, &n) == CUDA_SUCCESS;
    for (size_t i = 0; ok && i < n; i++)
        idx[i] = (S_index){nodes[i], i};
    if (ok)
        qsort(idx, n, sizeof *idx, S_index_cmp);
    for (size_t i = 0; ok && i < n; i++) {
        start[i] = nd;
        ok = S_deps(nodes[i], idx, n, &deps, &nd, &cap);
    }
    start[n] = nd;
    if (!ok || !gmi_graph_order(n, start, deps, order))
        S_refuse(g, "the tool could not order its nodes by their dependencies");
    else
        for (size_t j = 0; j < n; j++)
            S_node(g, nodes[order[j]], depth);
    free(nodes);
    free(idx);
    free(start);
    free(order);
    free(deps);
}

/* ---- making and changing instances -------------------------------------------------- */

static void S_record(struct gmi_graph *g, CUgraph graph)
{
    double t0 = gmi_now();
    S_walk(g, graph, 0);
    gmi_debug("CUDA graph %lld recorded: %zu kernel nodes, %zu memsets and copies, %s (%.3f ms)",
              g->id, g->n_kernels, g->n_ops, g->refusal ? g->refusal : "replayed node by node",
              1e3 * (gmi_now() - t0));
}

static void S_instantiated(CUgraphExec exec, CUgraph graph)
{
    struct gmi_graph *g = S_find(exec);   /* a handle used again */
    if (g)
        S_remove(g);
    if (gmi.n_graphs == gmi.cap_graphs) {
        gmi.cap_graphs = gmi.cap_graphs ? 2 * gmi.cap_graphs : 8;
        gmi.graphs = gm_xrealloc(gmi.graphs, gmi.cap_graphs * sizeof *gmi.graphs);
    }
    g = &gmi.graphs[gmi.n_graphs++];
    memset(g, 0, sizeof *g);
    g->exec = exec;
    g->id = ++gmi.graph_ids;
    S_record(g, graph);
}

/* cuGraphExecKernelNodeSetParams: node's copy made again from the new parameters. */
static void S_kernel_params(struct gmi_graph *g, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS *kp,
                            bool v2)
{
    size_t k = 0;
    while (k < g->n_kernels && g->nodes[k] != node)
        k++;
    if (k == g->n_kernels) {
        S_refuse(g, "its nodes were changed after instantiation (a kernel node the tool did not "
                    "record)");
        return;
    }
    CUfunction f = S_function(kp, v2);
    const char *symbol = NULL;
    if (!f || cuFuncGetName(&symbol, f) != CUDA_SUCCESS) {
        S_refuse(g, "its kernel node %zu was given a function the driver did not name", k + 1);
        return;
    }
    free(g->symbols[k]);
    g->symbols[k] = gm_xstrdup(symbol);
    if (g->refusal)
        return;
    struct gmi_pending p, *old = &g->kernels[k];
    if (old->L.config)   /* its attributes point into it: at its place now */
        old->L.config = &old->config;
    if (!S_copy_kernel(&p, f, kp, NULL, old)) {
        S_refuse(g, "the new arguments of its kernel node %zu cannot be copied (%s)", k + 1,
                 gmi.copy_fail);
        return;
    }
    p.symbol = gm_xstrdup(symbol);
    p.index = -1;
    gmi_pending_free(old);
    *old = p;
}

void gmi_graph_on_call(gmi_graph_call kind, const CUpti_CallbackData *cb)
{
    const void *params = cb->functionParams;
    if (!params)
        return;
    switch (kind) {
    case GMI_GRAPH_CALL_INSTANTIATE: {
        const S_instantiate_params *a = params;
        if (a->phGraphExec && *a->phGraphExec && a->hGraph)
            S_instantiated(*a->phGraphExec, a->hGraph);
        return;
    }
    case GMI_GRAPH_CALL_UPDATE: {
        const S_update_params *a = params;
        struct gmi_graph *g = S_find(a->hGraphExec);
        if (g) {
            S_clear(g);
            S_record(g, a->hGraph);
        }
        return;
    }
    case GMI_GRAPH_CALL_KERNEL_PARAMS: {
        const S_kernel_params_params *a = params;
        struct gmi_graph *g = S_find(a->hGraphExec);
        if (g && a->nodeParams)
            S_kernel_params(g, a->hNode, a->nodeParams,
                            cb->functionName && strstr(cb->functionName, "_v2"));
        return;
    }
    case GMI_GRAPH_CALL_CHANGE: {
        struct gmi_graph *g = S_find(*(const CUgraphExec *)params);
        if (g)
            S_refuse(g, "its nodes were changed after instantiation (%s)",
                     cb->functionName ? cb->functionName : "?");
        return;
    }
    case GMI_GRAPH_CALL_DESTROY: {
        struct gmi_graph *g = S_find(*(const CUgraphExec *)params);
        if (g)
            S_remove(g);
        return;
    }
    default:
        return;
    }
}

/* ---- launches ------------------------------------------------------------------------- */

long long gmi_graph_launch(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    const S_launch_params *a = cb->functionParams;
    if (!a)
        return -1;
    bool ptsz = cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
    CUstream stream = ptsz && !a->hStream ? CU_STREAM_PER_THREAD : a->hStream;
    /* launched into a stream being captured: a node of the graph captured,
     * whose kernels count when that graph runs */
    CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
    if (cuStreamIsCapturing(stream, &cs) != CUDA_SUCCESS || cs != CU_STREAM_CAPTURE_STATUS_NONE)
        return -1;
    gmi.status.graph_launches++;
    struct gmi_graph *g = S_find(a->hGraphExec);
    if (!g) {
        gmi.status.not_profilable++;
        gmi_note("the kernels of CUDA graphs instantiated where the tool could not record them "
                 "are not profiled");
        return -1;
    }
    size_t n = g->n_kernels, chosen = 0, upto = 0;
    gmi.status.graph_kernels += (long long)n;
    bool *sel = gm_xcalloc(n ? n : 1, sizeof *sel);
    long long *index = gm_xcalloc(n ? n : 1, sizeof *index);
    for (size_t i = 0; i < n; i++) {
        index[i] = gmi.status.launches++;
        char *name = gmi_demangle(g->symbols[i]);
        gmi_decision d = gmi_filter_next(&gmi.filter, name);
        if (d == GMI_SKIP_DONE && gmi.filter.limit_reached && !gmi.status.limit_reached) {
            gmi.status.limit_reached = true;
            gmi_write_status();
        }
        sel[i] = d == GMI_PROFILE;
        if (sel[i]) {
            chosen++;
            upto = i + 1;
        }
        gmi_debug("launch %lld %s (CUDA graph %lld, kernel node %zu): %s", index[i], name, g->id,
                  i + 1, sel[i] ? "profile" : "not profiled");
        free(name);
    }
    long long slot = -1;
    CUcontext ctx = cb->context;
    if (!chosen) {
        /* nothing of it profiled */
    } else if (gmi.stopped || !gmi_session_open(ctx)) {
        gmi.status.failed += (long long)chosen;
    } else if (gmi.ctx_dead || ctx != gmi.ctx) {
        gmi.status.not_profilable += (long long)chosen;
        gmi_note("CUDA graphs launched in a context other than the device's primary context are "
                 "not profiled");
    } else if (g->refusal || gmi.shared[0]) {
        gmi.status.not_profilable += (long long)chosen;
        gmi_note("the kernels of CUDA graphs that cannot be replayed node by node are not "
                 "counted one by one: each such graph is timed whole");
        slot = gmi_timed_graph(g, stream, index[0], ctx, g->refusal ? g->refusal : gmi.shared);
    } else {
        char *range = gmi_range_path();
        gmi_graph_replay(g, sel, index, upto, range);
        free(range);
    }
    free(sel);
    free(index);
    return slot;
}

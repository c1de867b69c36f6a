/* inject_internal.h — what the files of the injection library
 * (build/libgpumem-inject.so) share: its state, the launch it replays, the CUPTI
 * checkpoint, and the functions one file calls in another.  Private to them;
 * the CPU-side pieces, which the tests run, are declared in inject.h.
 *
 *   inject.c          the entry (InitializeInjection), the driver-API callback
 *                     and what keeps or ends a batch
 *   inject_batch.c    the replays: a batch, or a launch alone, from a CUPTI
 *                     checkpoint, and the runs they give
 *   inject_launch.c   one launch: described from its callback, copied for a
 *                     batch (arguments, parameter buffer, launch config), made again
 *   inject_session.c  the profiler session, messages, the status and runs
 *                     files, and the counts written at exit
 *   inject_nvtx.c     the NVTX ranges a launch is made in
 *   inject_graph.c    CUDA graphs: each instance recorded at instantiation (its
 *                     kernel nodes' launches copied, its memsets and copies), its
 *                     launches replayed node by node (gmi_graph_replay) or timed whole
 *   inject_timed.c    launches that cannot be replayed (collectives, graphs with
 *                     other nodes): timed from their own execution, CUDA events
 *                     around them, and their runs
 */
#ifndef GM_INJECT_INTERNAL_H
#define GM_INJECT_INTERNAL_H

#include "gm_collector.h"
#include "inject.h"

#include "../core/devlock.h"
#include "../core/results.h"

#include <cuda.h>
#include <cupti_callbacks.h>

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GMI_EXPORT __attribute__((visibility("default")))

/* The per-thread-default-stream entry points: cuda.h names them only when the
 * program is compiled with --default-stream per-thread. */
CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                     unsigned bx, unsigned by, unsigned bz, unsigned shm,
                                     CUstream s, void **params, void **extra);
CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **params,
                                       void **extra);
CUresult CUDAAPI cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx, unsigned gy,
                                                unsigned gz, unsigned bx, unsigned by,
                                                unsigned bz, unsigned shm, CUstream s,
                                                void **params);
CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream s, CUstreamCaptureStatus *status);
CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec exec, CUstream s);

/* cupti_checkpoint.h is C++ (a namespace around extern "C" functions); the
 * same struct, field for field, and the same C symbols.  Layout: 4 words, two
 * bytes, padding, a pointer = 48 bytes on LP64. */
typedef struct {
    size_t structSize;
    CUcontext ctx;
    size_t reserveDeviceMB;
    size_t reserveHostMB;
    uint8_t allowOverwrite;
    uint8_t optimizations;
    void *pPriv;
} gmi_checkpoint;
_Static_assert(sizeof(gmi_checkpoint) == 48 && offsetof(gmi_checkpoint, pPriv) == 40,
               "CUpti_Checkpoint layout");
#define GMI_CHECKPOINT_SIZE (offsetof(gmi_checkpoint, pPriv) + sizeof(void *))
CUptiResult cuptiCheckpointSave(gmi_checkpoint *handle);
CUptiResult cuptiCheckpointRestore(gmi_checkpoint *handle);
CUptiResult cuptiCheckpointFree(gmi_checkpoint *handle);

/* The library's own symbols stay inside it (the Makefile builds it with
 * -fvisibility=hidden; this tells the compiler so for the declarations below). */
#pragma GCC visibility push(hidden)

/* ---- state ------------------------------------------------------------------ */

/* One launch as the program made it: enough to make it again. */
typedef struct {
    CUpti_CallbackId cbid;
    CUfunction f;
    unsigned grid[3], block[3], shm;
    CUstream stream;
    void **params, **extra;
    const CUlaunchConfig *config;   /* cuLaunchKernelEx */
    bool ptsz;
} gmi_launch;

/* A launch of the open batch: a copy of everything needed to make it again
 * after the program's own call has returned. */
struct gmi_pending {
    gmi_launch L;              /* params, extra and config point into the fields below
                                  (extra and config into the struct: moved, it is re-pointed) */
    unsigned char *args;       /* the arguments' bytes, at their offsets */
    size_t args_size;          /* their extent (the last one's offset + size) */
    void **argv;
    void *extra_buf;           /* CU_LAUNCH_PARAM_BUFFER_POINTER's bytes */
    size_t extra_size;
    void *extra[5];
    CUlaunchConfig config;
    CUlaunchAttribute *attrs;
    char *symbol;
    long long index;
    char *range;
};

/* A memset or copy the program made inside a batch (or a graph holds), made
 * again before launch `before` in every pass. */
struct gmi_op {
    gmi_op_kind kind;
    CUdeviceptr dst, src;
    unsigned value;
    size_t n;                  /* elements (memset) or bytes (copy) */
    size_t before;
};

/* One instance of a CUDA graph, recorded at its instantiation (inject_graph.c). */
struct gmi_graph {
    CUgraphExec exec;
    long long id;              /* 1, 2, ... in the order of instantiation */
    char **symbols;            /* each kernel node's function (mangled), in the walk's order */
    CUgraphNode *nodes;        /* the node each came from */
    size_t n_kernels;
    struct gmi_pending *kernels; /* their launches, copied (NULL when refusal is set) */
    struct gmi_op *ops;        /* memsets and copies; before = the kernel node they precede */
    size_t n_ops, cap_ops;
    char *refusal;             /* NULL: replayed node by node; else why not ("it holds a
                                  host-function node") */
};

/* A launch timed from its own execution (inject_timed.c): a kernel that cannot
 * be replayed, or a graph that cannot be replayed node by node. */
struct gmi_timed {
    long long id;              /* 1, 2, ...: its slot (gmi_timed_end) */
    CUevent e0, e1;            /* recorded before and after it on its stream */
    CUstream stream;
    bool ended;                /* e1 recorded after the program's call returned */
    bool failed;               /* the program's call failed: nothing ran */
    char *symbol;              /* the kernel (mangled); NULL for a graph */
    long long graph;           /* > 0: the graph instance timed whole */
    size_t graph_kernels;      /* its kernel nodes */
    char *kernels;             /* their short names, ", " between (a graph) */
    gmi_launch L;              /* function and shape (a kernel; params unused) */
    long long index;
    char *range;
    char *why;                 /* the run's not_replayed */
};

/* The library's state, one per process (defined in inject.c). */
struct gmi_state {
    bool active;               /* options read, directory owned, subscribed */
    gmi_opts opts;
    gmi_filter filter;
    gmi_status status;
    CUpti_SubscriberHandle sub;
    pthread_mutex_t lock;

    gmc_session *session;
    bool session_failed;       /* opening failed once: not tried again */
    bool stopped;              /* a restore failed: profile nothing more */
    bool ctx_dead;             /* the profiled context was destroyed */
    CUcontext ctx;             /* the primary context the session profiles */
    char **metrics;
    size_t n_metrics;
    double *values;
    size_t duration_index;     /* index of gpu__time_duration.sum, or n_metrics */
    gm_results results;
    bool results_header;
    gm_devlock devlock;        /* taken before the profiler session opens, held until
                                  exit: processes sharing the GPU profile in turns */
    char uuid[48];
    char said[8][32];          /* error kinds already printed */
    /* where the profiling time goes (seconds, summed over profiled launches):
     * printed at exit with GPUMEM_REPORT_DEBUG */
    double t_open, t_sync, t_save, t_config, t_passes, t_decode, t_restore, t_copy, t_batch;
    double t_startstop;        /* of t_passes, in the range profiler's Start and Stop */
    long long reenabled;       /* batches that needed the range profiler enabled afresh */

    /* the open batch (gmi_api_keeps_batch in inject.h): launches that ran
     * since the checkpoint, waiting to be replayed */
    struct gmi_pending *pending;
    size_t n_pending;          /* read without the lock by the callback's fast path */
    gmi_checkpoint before;     /* device memory before the batch's first launch */
    long long batches, batched;           /* batches replayed, launches in them */
    long long single;                     /* launches profiled on their own (no copy) */
    struct { char why[40]; long long n; } ends[8];   /* what ended the batches */
    bool exit_hook;            /* S_at_exit_batch (inject_batch.c) registered */
    struct gmi_op *ops;        /* memsets and copies between the batch's launches */
    size_t n_ops, cap_ops;
    long long ops_replayed;    /* of all batches */
    char copy_fail[128];       /* why the last launch profiled alone could not be copied */

    gmi_noreplay noreplay;     /* kernels never replayed (inject.h) */
    char shared[192];          /* "": no other process or GPU writes this process's memory;
                                  else since when they may (gmi_api_shares_memory), and every
                                  launch is timed, not replayed */
    struct gmi_graph *graphs;  /* the instances alive, recorded at instantiation */
    size_t n_graphs, cap_graphs;
    long long graph_ids;       /* instances recorded so far */
    long long graph_replays, graph_nodes;   /* graph launches replayed node by node, and
                                               the kernel nodes replayed in them */
    struct gmi_timed *timed;   /* timed launches whose events are not yet read */
    size_t n_timed, cap_timed;
    long long timed_ids;       /* timed launches so far */
};
extern struct gmi_state gmi;

extern _Thread_local int gmi_busy;  /* inside our own work: ignore launches */

/* The memset and copy parameter structs as generated_cuda_meta.h has them
 * (the Async forms add a stream after these fields). */
typedef struct { CUdeviceptr dst; unsigned char v; size_t n; } gmi_memset8_params;
typedef struct { CUdeviceptr dst; unsigned short v; size_t n; } gmi_memset16_params;
typedef struct { CUdeviceptr dst; unsigned int v; size_t n; } gmi_memset32_params;
typedef struct { CUdeviceptr dst, src; size_t n; } gmi_copy_params;

/* ---- inject_session.c: messages and files -------------------------------------- */

/* A line on stderr with GPUMEM_REPORT_DEBUG. */
void gmi_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Record the first error of each kind in the status and say it once on stderr. */
void gmi_error(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Why some launches were not profiled: each reason once, "; " between. */
void gmi_note(const char *why);
/* dir/name (caller frees). */
char *gmi_path(const char *name);
void gmi_write_status(void);
void gmi_write_runs(void);
/* Seconds on the monotonic clock. */
double gmi_now(void);
/* atexit: the timing line, the runs and the status, for the last time. */
void gmi_at_exit(void);

/* ---- inject_session.c: the profiler session ------------------------------------- */

/* The status file's error kind for a collector status. */
const char *gmi_kind_of(gmc_status s);
/* Open the collector on the device of `ctx` (the calling thread's current
 * context, left current on return), once; false when it is not open (then or
 * at an earlier try). */
bool gmi_session_open(CUcontext ctx);

/* ---- inject_nvtx.c ---------------------------------------------------------------- */

/* "outer/inner" for the calling thread, or NULL outside every range. */
char *gmi_range_path(void);

/* ---- inject_launch.c -------------------------------------------------------------- */

/* Make the launch again, through the entry point it was made by. */
CUresult gmi_relaunch(const gmi_launch *L);
/* The launch described by a driver callback; false for entry points we cannot replay. */
bool gmi_describe(CUpti_CallbackId cbid, const void *p, gmi_launch *L);
/* Copy the launch L into p for the open batch; false (gmi.copy_fail says
 * why) when its arguments cannot be copied: it is then profiled on its own. */
bool gmi_pending_copy(struct gmi_pending *p, const gmi_launch *L);
void gmi_pending_free(struct gmi_pending *p);
/* L's shape, shared memory (dynamic + static), registers and theoretical
 * occupancy (the driver's occupancy calculator for L's block size and dynamic
 * shared memory, in the current context) into *out; what the driver does not
 * say stays unknown (registers -1, occupancy 0). */
void gmi_launch_shape(const gmi_launch *L, gm_launch *out);

/* ---- inject_batch.c --------------------------------------------------------------- */

/* Profile the launch about to be enqueued on its own (gmi_busy set). */
void gmi_profile(const gmi_launch *L, const char *symbol, long long index, CUcontext ctx);
/* Add the launch about to be enqueued to the open batch, opening one when
 * there is none.  false: it could not be copied (profile it on its own).
 * gmi_busy set. */
bool gmi_batch_add(const gmi_launch *L, const char *symbol, long long index, CUcontext ctx);
/* Replay the open batch and close it, at the entry of the call that ends it
 * (why: its name).  gmi_busy set. */
void gmi_batch_end(const char *why);
/* Record a memset or copy (params: the call's functionParams) as an
 * operation of the open batch; false when it cannot be (then it ends the batch). */
bool gmi_op_record(gmi_op_kind kind, const void *params);
/* Register the exit handler that ends the last batch and reads the last
 * timings (once; before the CUDA runtime's own handlers run). */
void gmi_exit_hook(void);
/* Replay kernel nodes 0 .. upto - 1 of graph g once per pass, from the memory
 * the graph's launch finds, in chunks of at most GMI_BATCH_MAX, with its
 * memsets and copies between them; the runs of those selected (sel[i], launch
 * index index[i]); the program's memory restored after.  gmi_busy set. */
void gmi_graph_replay(struct gmi_graph *g, const bool *sel, const long long *index, size_t upto,
                      const char *range);

/* ---- inject_graph.c --------------------------------------------------------------- */

/* A driver call that makes, changes or destroys an instance (gmi_api_graph_call):
 * at its exit (destroy: at its entry), with gmi.lock held and gmi_busy set. */
void gmi_graph_on_call(gmi_graph_call kind, const CUpti_CallbackData *cb);
/* The entry of cuGraphLaunch: its kernel nodes counted and filtered as
 * launches, replayed node by node or the graph timed whole.  Returns the
 * timed slot (gmi_timed_end at the call's exit) or -1.  gmi.lock held. */
long long gmi_graph_launch(CUpti_CallbackId cbid, const CUpti_CallbackData *cb);
/* Forget every instance (at the context's destruction). */
void gmi_graph_forget_all(void);

/* ---- inject_replay.c -------------------------------------------------------------- */

/* A module loaded (CUPTI's resource callback, capture on): its cubin copied,
 * for a launch of one of its functions to be kept. */
void gmi_capture_module(const void *cubin, size_t size);
/* The first profiled launch of each kernel, about to be enqueued: kept in the
 * directory (collectors/replay_file.h) when capture is on.  gmi.lock held,
 * gmi_busy set; synchronizes the context (the memory must be as the launch
 * will find it). */
void gmi_capture_launch(const gmi_launch *L, const char *symbol, const char *name,
                        long long index, CUcontext ctx);
/* Capture is on and no launch of symbol's kernel (mangled) is kept yet. */
bool gmi_capture_wants(const char *symbol);

/* ---- inject_timed.c --------------------------------------------------------------- */

/* The launch L (selected, not replayable: why; collective: it waits on
 * others, else it ran after gmi.shared) timed from its own execution:
 * the open batch ended, the first event recorded on its stream.  Its slot
 * (an id, > 0) for gmi_timed_end, or -1 when it cannot be timed (counted and said).
 * gmi.lock held, gmi_busy set. */
long long gmi_timed_launch(const gmi_launch *L, const char *symbol, long long index,
                           CUcontext ctx, const char *why, bool collective);
/* A graph that cannot be replayed node by node (why: g->refusal, or
 * gmi.shared), timed whole on stream s. */
long long gmi_timed_graph(const struct gmi_graph *g, CUstream s, long long index, CUcontext ctx,
                          const char *why);
/* Other processes or GPUs may write this process's memory from now on (why,
 * "a collective ran (...)"): the open batch ends, later launches are timed.
 * gmi.lock held, gmi_busy set. */
void gmi_memory_shared(const char *why);
/* At the exit of the timed call: the second event, when the call succeeded. */
void gmi_timed_end(long long slot, bool launched);
/* Read the timings whose events have completed into runs; with wait_s > 0,
 * wait up to that long for the others (at exit), then give up on them. */
void gmi_timed_collect(double wait_s);

#pragma GCC visibility pop

#endif

/* inject.h — profiling someone else's program: the pieces of the injection
 * library (build/libgpumem-inject.so, collectors/inject*.c) and of
 * `gpumem-report -- PROGRAM` (cli/cmd_app.c) that touch no GPU, so
 * tests/test_inject.c runs them on CI.
 *
 * How the two sides talk (all through one private directory the CLI makes):
 *
 *   CLI                                     program (+ the library, loaded by the
 *                                           CUDA driver at cuInit through
 *                                           CUDA_INJECTION64_PATH, and by NVTX
 *                                           through NVTX_INJECTION64_PATH)
 *   GPUMEM_REPORT_DIR=<dir> and the options
 *   below in the environment; fork, exec ->
 *                                           InitializeInjection: claims <dir>/owner
 *                                           (O_EXCL: the first CUDA process of the
 *                                           tree is the one profiled), writes
 *                                           <dir>/status ("loaded")
 *                                           each kernel launch: filter, add to the
 *                                           open batch (see "batches"); at the batch's
 *                                           end replay and profile it,
 *                                           append a run, rewrite <dir>/runs.json
 *                                           and <dir>/status (temp + rename)
 *                                           exit: final <dir>/status
 *   waitpid; read status and runs.json,
 *   group, name, write the results file
 *   and the report; exit with the
 *   program's status
 *
 * No status file means the library never ran: the program did not initialise
 * CUDA, or the driver did not load the library.  The CLI says which it thinks.
 */
#ifndef GM_INJECT_H
#define GM_INJECT_H

#include "../core/results.h"

#include <stdbool.h>
#include <stddef.h>

/* Environment the CLI sets for the program. */
#define GMI_ENV_DIR "GPUMEM_REPORT_DIR"                 /* required */
#define GMI_ENV_METRICS "GPUMEM_REPORT_METRICS"         /* ncu-style list; unset: catalog default */
#define GMI_ENV_KERNEL "GPUMEM_REPORT_KERNEL"           /* POSIX extended regex */
#define GMI_ENV_LAUNCH_SKIP "GPUMEM_REPORT_LAUNCH_SKIP"
#define GMI_ENV_LAUNCH_COUNT "GPUMEM_REPORT_LAUNCH_COUNT"
#define GMI_ENV_CACHE_FLUSH "GPUMEM_REPORT_CACHE_FLUSH" /* 1 (default) or 0 */
#define GMI_ENV_DEBUG "GPUMEM_REPORT_DEBUG"             /* 1: trace callbacks on stderr */
#define GMI_ENV_NO_REPLAY "GPUMEM_REPORT_NO_REPLAY"     /* POSIX extended regex: kernels never
                                                           replayed, besides the built-in list
                                                           (gmi_noreplay_match) */
/* 1: replay launches after the process shared memory with others (see
 * gmi_api_shares_memory) as before it.  For diagnosis only: a restore may
 * then undo what another process or GPU wrote, and the program compute
 * something else (seen: NCCL all-reduces giving wrong sums).  Passed through
 * as the user sets it. */
#define GMI_ENV_REPLAY_SHARED "GPUMEM_REPORT_REPLAY_SHARED"
/* The per-source-line pass (issue 14): the program runs once more per kernel
 * with only these two set; the library then counts the first launch of that
 * kernel (demangled name, as runs.json names it) under CUPTI's SASS metrics
 * and writes its records to the file (collectors/gmc_sass.h). */
#define GMI_ENV_SASS_KERNEL "GPUMEM_REPORT_SASS_KERNEL"
#define GMI_ENV_SASS_OUT "GPUMEM_REPORT_SASS_OUT"
/* The per-source-line pass through the Compute Sanitizer (issue 25): the
 * program runs once more with the records file named here and the filter
 * variables above as the counter run had them; the library traces the
 * first launch of each kernel the filter chooses, all in that one run
 * (collectors/inject_trace.c, collectors/trace_mode.h).  GPUMEM_REPORT_
 * TRACE_LIB names the tracer's library (default: libgpumem-trace.so beside
 * the injection library). */
#define GMI_ENV_TRACE_OUT "GPUMEM_REPORT_TRACE_OUT"
/* 1: the counted run keeps the first launch of each profiled kernel (its
 * cubin, shape, arguments and the memory they point into) in the directory,
 * for `gpumem-report trace-replay` to trace in a process of its own without
 * running the program again (collectors/replay_file.h, inject_replay.c). */
#define GMI_ENV_CAPTURE "GPUMEM_REPORT_CAPTURE"
#define GMI_ENV_TRACE_LIB "GPUMEM_REPORT_TRACE_LIB"

/* The trace mode's entry (inject_trace.c): called by InitializeInjection
 * when GPUMEM_REPORT_TRACE_OUT is set, instead of everything else. */
void gmi_trace_start(void);

/* Launches profiled when --launch-count is not given: a launch costs about
 * 2 x 1.4 ms in each of the 5 passes (its range and the L2 flush's), and a
 * batch a few tens of ms per pass more (bench/results/program-vs-ncu-*), so
 * 200 is a few seconds. */
#define GMI_DEFAULT_LIMIT 200
#define GMI_MAX_COUNT 100000

/* Files in the directory. */
#define GMI_FILE_OWNER "owner"
#define GMI_FILE_STATUS "status"
#define GMI_FILE_RUNS "runs.json"

/* ---- options ------------------------------------------------------------- */

typedef struct {
    char *dir;            /* GPUMEM_REPORT_DIR */
    char *metrics;        /* NULL: the catalog's default set */
    char *kernel_regex;   /* NULL: every kernel */
    long long launch_skip;
    long long launch_count; /* -1: not given (GMI_DEFAULT_LIMIT applies) */
    bool flush_l2;
    bool debug;
    char *no_replay;      /* NULL: the built-in list alone (gmi_noreplay_match) */
    bool replay_shared;   /* GMI_ENV_REPLAY_SHARED */
    bool capture;         /* GMI_ENV_CAPTURE */
} gmi_opts;

/* Read the options through get(name, ctx) (getenv in the library, a table in
 * the tests).  false with msg filled (naming the variable and its value) on a
 * bad value or a missing directory; *o is then still safe to free. */
bool gmi_opts_parse(const char *(*get)(const char *name, void *ctx), void *ctx, gmi_opts *o,
                    char *msg, size_t cap);
void gmi_opts_free(gmi_opts *o);

/* Compile-check a kernel filter: false with regerror's words in msg. */
bool gmi_regex_check(const char *regex, char *msg, size_t cap);

/* ---- which launches are profiled ----------------------------------------- */

typedef enum {
    GMI_PROFILE = 0,
    GMI_SKIP_FILTER,     /* name does not match --kernel */
    GMI_SKIP_BEFORE,     /* one of the first --launch-skip matching launches */
    GMI_SKIP_DONE        /* --launch-count (or the default limit) already profiled */
} gmi_decision;

typedef struct {
    void *regex;         /* compiled regex_t, NULL: all */
    long long skip, count;  /* count: launches to profile (limit when not given) */
    bool count_given;
    long long seen;      /* launches offered */
    long long matched;   /* of those, matching the filter */
    long long chosen;    /* of those, selected for profiling */
    bool limit_reached;  /* a matching launch was refused by the default limit */
} gmi_filter;

/* false with msg when the regex does not compile. */
bool gmi_filter_init(gmi_filter *f, const gmi_opts *o, char *msg, size_t cap);
void gmi_filter_free(gmi_filter *f);
/* Decide for the next launch of kernel `name` (demangled), ncu's way: the
 * filter first, then --launch-skip among matching launches, then at most
 * --launch-count of them. */
gmi_decision gmi_filter_next(gmi_filter *f, const char *name);

/* ---- names ------------------------------------------------------------------ */

/* The demangled name of a kernel symbol ("_Z4copyPKfPfi" -> "copy(float const*,
 * float*, int)"); a C name or one that does not demangle is copied as is.
 * Never NULL; caller frees. */
char *gmi_demangle(const char *symbol);

/* The function's qualified name without parameters or return type:
 * "void k<32>(float*)" -> "k<32>", "ns::f(int)" -> "ns::f".  Caller frees. */
char *gmi_full_name(const char *demangled);

/* The base name the report shows (like `ncu --print-kernel-base function`):
 * no return type, no parameter list, no namespace or class before the
 * function's name, and template arguments shortened to "<…>" when the name
 * would be longer than GMI_SHORT_MAX bytes: "void at::native::reduce_kernel<512,
 * 1, ...>(...)" -> "reduce_kernel<…>", "ns::f(int)" -> "f", "void k<32>(float*)"
 * -> "k<32>".  A symbol gmi_demangle left mangled (nvcc's extended lambdas)
 * gets its base name from core/symbol.h.  Caller frees. */
#define GMI_SHORT_MAX 40
char *gmi_short_name(const char *demangled);

/* ---- batches ------------------------------------------------------------------------- */

/* A program's profiled launches are replayed in batches (collectors/inject_batch.c):
 * the first launch of a batch has its device memory saved (CUPTI checkpoint);
 * it and the profiled launches after it run as the program makes them, their
 * arguments copied, until a driver call that could change device memory by
 * other means (or GMI_BATCH_MAX launches, or the end of the program); then
 * the memory is saved again, restored to the first save, every launch of the
 * batch replayed once per pass, and the second save restored.
 *
 * May the driver API function `name` (as CUPTI names it: "cuMemcpyHtoD_v2")
 * run inside a batch?  true for calls that change no device memory: queries
 * and getters, synchronization, events, stream creation and waits, context
 * switches, function attributes, copies to the host, allocations (not
 * frees), module and library loads (not unloads).  Everything else (copies
 * to the device, frees, unloads, graph
 * and host-function launches, a context's destruction, calls this list does
 * not know) ends the batch first.  Generic copies ("cuMemcpy", "cuMemcpyAsync"
 * and their _ptds/_ptsz forms) return false here: the caller decides them by
 * the destination's memory type (gmi_api_is_generic_copy). */
bool gmi_api_keeps_batch(const char *name);
bool gmi_api_is_generic_copy(const char *name);

/* Calls that change device memory in a way the batch can make again: a 1-D
 * memset of device memory or a device-to-device copy.  The program's call
 * runs as made; it is recorded and made again, on the replays' stream,
 * between the same two launches in every pass, and the batch goes on. */
typedef enum {
    GMI_OP_NONE = 0,
    GMI_OP_MEMSET8,
    GMI_OP_MEMSET16,
    GMI_OP_MEMSET32,
    GMI_OP_COPY_DTOD,
    GMI_OP_COPY_ANY     /* a graph's copy node with a host end (cuMemcpyAsync, unified
                           addressing); never a program's call */
} gmi_op_kind;
gmi_op_kind gmi_api_replayable(const char *name);

#define GMI_BATCH_MAX 64

/* ---- the status file ---------------------------------------------------------- */

/* What the library tells the CLI, one "key value" line each. */
typedef struct {
    bool loaded;              /* the file exists and starts with the magic line */
    long long pid;
    long long launches;       /* kernel launches the library saw in its context */
    long long matched, profiled;
    long long failed;         /* selected, but profiling it failed (see error) */
    long long not_profilable; /* graph capture, another context, after a device reset */
    long long runtime_only;   /* runtime launches with no driver launch seen under them */
    long long graph_launches; /* cuGraphLaunch calls */
    long long graph_kernels;  /* kernel nodes those launches ran (each counted in launches,
                                 as ncu --graph-profiling node counts them) */
    long long timed;          /* launches that could not be replayed (gmi_noreplay_match, a
                                 graph that cannot be replayed node by node): measured from
                                 their own execution only (duration) */
    long long captured;       /* launches captured into a graph (they ran later, as nodes) */
    bool limit_reached;
    long long limit;          /* launch count in force */
    char error_kind[32];      /* "" | "permission" | "device" | "profiler" | "options" ... */
    char error[1024];         /* the first error, one line */
    char note[512];           /* why launches were not profiled, each reason once, "; " between */
    char timing[1024];        /* where the profiling time went, one line of words ("" if none) */
} gmi_status;

/* Text of the status file (caller frees). */
char *gmi_status_format(const gmi_status *s);
/* Parse it: false (and msg) when the text is not a status file; unknown keys are
 * ignored (a newer library), so are malformed numbers (kept 0). */
bool gmi_status_parse(const char *text, gmi_status *s, char *msg, size_t cap);

/* ---- messages ----------------------------------------------------------------- */

/* The longest line the CLI writes to stderr about a program's run, in bytes
 * (a line of up to 5,093 characters quoted a kernel's whole signature). */
#define GMI_LINE_MAX 200

/* prefix, then text, as lines for stderr: each at most GMI_LINE_MAX bytes
 * and ending in '\n'; every mangled symbol in text replaced by its readable
 * name (core/symbol.h); the text wrapped at spaces, a continuation line
 * indented by two spaces, a word longer than a line cut with "…".  Caller
 * frees. */
char *gmi_say(const char *prefix, const char *text);

/* A kernel as a message names it: the short name of a symbol, mangled or
 * demangled ("_ZN2at6native18elementwise_kernel..." -> "elementwise_kernel<…>").
 * What collectors/inject.c should print where it prints a symbol.  Caller
 * frees. */
char *gmi_message_name(const char *symbol);

/* The status's error, note and timing with every mangled symbol replaced by
 * its readable name: the CLI puts them in the report and on stderr. */
void gmi_status_readable(gmi_status *s);

/* ---- from per-launch runs to the report's runs ------------------------------- */

/* Per-launch runs as the library writes them: experiment "app", kernel =
 * demangled name, params "launch" (int, the launch's index among all the
 * program's launches) and "range" (string, the NVTX range path, absent when
 * none), launch config, metrics, timing of one sample (the profiler's
 * duration), check no-reference.
 *
 * gmi_group turns them into the runs of the report, in place:
 *   each = false: launches of the same kernel with the same range, grid,
 *     block and shared memory become one run: counts (.sum) summed, ratios and
 *     percentages recomputed from summed parts where the catalog knows them
 *     (sectors per request = sectors / requests, efficiency weighted by
 *     requests) and otherwise averaged weighted by duration (percentages of
 *     peak, hit rates, rates); timing samples are the launches' durations;
 *     param "launches" = how many, "launch" = the first one's index.
 *   each = true: one run per launch, as written.
 * Each numeric metric of a group of n > 1 launches gets launch_min and
 * launch_max (the extreme launches' values); counts (.sum) are stored as the
 * mean per launch (the group's total is that times timing.n), so every value
 * of a run is per launch, like the time.
 * Runs are then ordered by their GPU time over all launches, largest first.
 * Then every run gets experiment = exp_id and a variant name unique within
 * it: the innermost NVTX range, else the kernel's short name
 * (gmi_short_name).  Different kernels with one short name are told apart by
 * the words of their signatures the others lack, in their template
 * arguments first ("for_each_kernel<…triad…>"), then the namespaces before
 * the name ("ns1::k"), then the parameters ("k(…double…)"), at most three
 * words; a symbol the demangler could not read by the names it holds
 * (core/symbol.h: gm_symbol_outline); kernels no words tell apart get " [1]",
 * " [2]", ... in order of time.  Where two runs would share a name, the
 * kernel's name is added after the range, then the grid and block, then
 * "#<launch>". */
void gmi_group(gm_results *r, bool each, const char *exp_id);

/* The metric's unit-based kind for grouping: true when values of launches add
 * up (a .sum counter that is not a rate or a percentage). */
bool gmi_metric_sums(const char *name);

/* ---- CUDA graphs ---------------------------------------------------------------- */

/* A graph is recorded when it is instantiated (collectors/inject_graph.c):
 * its nodes walked in a topological order, child graphs in place, and each
 * kernel node's launch copied (the program may destroy the graph once
 * instantiated).  At each launch of the instance its kernel nodes count as
 * launches (filters, launch index, as `ncu --graph-profiling node` counts
 * them) and are replayed one by one from the memory the graph's launch
 * found, its memsets and copies made again between them; the program's own
 * launch then runs on that memory, restored.  A graph with a node of another
 * kind cannot be replayed so: it is timed as a whole, its kernels named. */
typedef enum {
    GMI_NODE_KERNEL = 0,
    GMI_NODE_MEMSET,
    GMI_NODE_MEMCPY,
    GMI_NODE_EMPTY,
    GMI_NODE_EVENT,       /* event record or wait: nothing to make again */
    GMI_NODE_GRAPH,       /* a child graph: walked in place */
    GMI_NODE_HOST,
    GMI_NODE_SEMAPHORE,   /* external semaphore signal or wait */
    GMI_NODE_MEM_ALLOC,
    GMI_NODE_MEM_FREE,
    GMI_NODE_MEMOP,       /* stream memory operations (wait on a value, write one) */
    GMI_NODE_CONDITIONAL,
    GMI_NODE_OTHER
} gmi_node_kind;

/* NULL when a node of this kind can be replayed (or needs nothing: empty,
 * events, a child graph walked in place); else what the node is, for "not
 * replayed node by node: it holds %s". */
const char *gmi_node_refusal(gmi_node_kind k);

/* A topological order of n nodes: node i depends on deps[dep_start[i] ..
 * dep_start[i + 1] - 1] (indices); of the nodes ready at each step, the
 * lowest index first, so a graph captured from one stream keeps its order.
 * false on a cycle or an index out of range. */
bool gmi_graph_order(size_t n, const size_t *dep_start, const size_t *deps, size_t *order);

/* A memset node as a batch operation: elements of 1, 2 or 4 bytes in one
 * contiguous run (one row, or rows that touch: pitch = width x element);
 * *n gets the element count.  GMI_OP_NONE otherwise. */
gmi_op_kind gmi_memset_op(unsigned element_size, size_t width, size_t height, size_t pitch,
                          size_t *n);

/* A memcpy node's shape: made again when it is one contiguous run of bytes
 * (no CUDA array at either end, one row and one slice, or none). */
typedef struct {
    bool src_array, dst_array;
    size_t src_y, src_z, dst_y, dst_z;
    size_t width, height, depth;    /* bytes, rows, slices (0 reads as 1) */
} gmi_copy_shape;
bool gmi_copy_is_1d(const gmi_copy_shape *c);

/* The driver calls that make or change an instance (as CUPTI names them,
 * "cuGraphExecUpdate_v2"): INSTANTIATE (every cuGraphInstantiate form),
 * UPDATE (cuGraphExecUpdate: recorded again from the new graph),
 * KERNEL_PARAMS (cuGraphExecKernelNodeSetParams: the node's copy replaced),
 * CHANGE (any other change to an instance's nodes, enabling or disabling
 * one: it is no longer replayed node by node), DESTROY. */
typedef enum {
    GMI_GRAPH_CALL_NONE = 0,
    GMI_GRAPH_CALL_INSTANTIATE,
    GMI_GRAPH_CALL_UPDATE,
    GMI_GRAPH_CALL_KERNEL_PARAMS,
    GMI_GRAPH_CALL_CHANGE,
    GMI_GRAPH_CALL_DESTROY
} gmi_graph_call;
gmi_graph_call gmi_api_graph_call(const char *name);

/* ---- kernels that cannot be replayed ------------------------------------------ */

/* A collective waits for the same kernel on other GPUs or processes; a
 * replay of it alone would wait for ever (or fail).  Such launches end the
 * open batch, are never replayed, and are timed from their own execution
 * (CUDA events around the program's launch).  Built in (on the demangled
 * name): NCCL's kernels (ncclDevKernel_*, ncclKernel_*, older nccl...Kernel*),
 * NVSHMEM's, PyTorch's symmetric-memory kernels (c10d::symmetric_memory::),
 * custom all-reduce kernels (cross_device_reduce*, vLLM), MSCCL++'s and
 * DeepEP's; --no-replay REGEX adds more. */
typedef struct {
    void *builtin;        /* regex_t[], one per built-in pattern */
    void *user;           /* regex_t of --no-replay, or NULL */
} gmi_noreplay;

/* false with msg when the user's regex does not compile. */
bool gmi_noreplay_init(gmi_noreplay *nr, const char *user_regex, char *msg, size_t cap);
void gmi_noreplay_free(gmi_noreplay *nr);
/* Why a kernel of this demangled name is never replayed ("an NCCL
 * collective", ..., "it matches --no-replay"), or NULL. */
const char *gmi_noreplay_match(const gmi_noreplay *nr, const char *name);
/* Compile-check a --no-replay regex: false with regerror's words in msg. */
bool gmi_noreplay_check(const char *regex, char *msg, size_t cap);

/* Memory another process or GPU may write at any time makes every restore
 * unsafe: a replay restores the memory the batch found, undoing what they
 * wrote meanwhile.  Once the process exports or imports memory (the driver
 * calls below) or runs a collective, the open batch ends and every later
 * launch is timed, not replayed (unless GMI_ENV_REPLAY_SHARED).  The call's
 * base name when `name` ("cuMemExportToShareableHandle", with or without
 * _v2, _ptsz) shares memory: CUDA IPC, memory-pool and VMM handles, dma-buf
 * handles for RDMA; else NULL. */
const char *gmi_api_shares_memory(const char *name);

#endif

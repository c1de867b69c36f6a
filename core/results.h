/* results.h — the results file in memory: the contract between the GPU side
 * (kernels/, collectors/) and the CPU side (reports/).
 *
 * The JSON form is documented field by field in docs/results-format.md; this
 * header mirrors it.  Rules the JSON keeps and this model preserves:
 *   - integers stay integers (gm_value GM_V_INT), doubles round-trip exactly
 *     (printed with 17 significant digits);
 *   - an absent value is explicit (GM_V_ABSENT in memory, null in JSON), never 0;
 *   - every string is owned by the structure that holds it (heap, freed by
 *     gm_results_free); NULL means absent.
 */
#ifndef GM_RESULTS_H
#define GM_RESULTS_H

#include "gm_error.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GM_SCHEMA_NAME "gpumem-report/results"
#define GM_SCHEMA_VERSION 1

/* ---- values -------------------------------------------------------------- */

typedef enum { GM_V_ABSENT = 0, GM_V_INT, GM_V_REAL, GM_V_STR } gm_vkind;

typedef struct {
    gm_vkind kind;
    long long i;   /* GM_V_INT */
    double r;      /* GM_V_REAL (finite; NaN/inf are stored as ABSENT) */
    char *s;       /* GM_V_STR, owned */
} gm_value;

gm_value gm_vint(long long i);
gm_value gm_vreal(double r);          /* non-finite -> ABSENT */
gm_value gm_vstr(const char *s);      /* copies; NULL -> ABSENT */
gm_value gm_vabsent(void);
bool gm_value_present(const gm_value *v);
/* Numeric value as double (INT or REAL); NaN when absent or a string. */
double gm_value_num(const gm_value *v);

/* ---- parts of a run ------------------------------------------------------ */

/* One parameter of a run: sizes, stride, block size, offset... */
typedef struct {
    char *name;
    gm_value value;
} gm_param;

/* One metric value under its exact Nsight Compute name
 * ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") with its unit as ncu
 * prints it ("sector", "request", "byte", "%", "ns", "byte/second", ...). */
typedef struct {
    char *name;
    gm_value value;   /* INT for counts, REAL for ratios; ABSENT when not collected */
    char *unit;
    /* A program's grouped launches (gpumem-report -- PROGRAM): value is the
     * mean per launch; launch_min and launch_max the smallest and largest
     * launch's value.  ABSENT elsewhere (and not written). */
    gm_value launch_min, launch_max;
} gm_metric;

/* Kernel time from device events; times in milliseconds. */
typedef struct {
    bool present;
    int warmup;            /* launches run and discarded before sampling */
    bool l2_flushed;       /* L2 flushed before each timed repetition */
    bool gated;            /* repetitions enqueued behind a gate kernel and released
                              together: no sample holds the host's time to submit its
                              launch (optional key; false in older files) */
    size_t n;              /* number of samples */
    double *samples;       /* n samples in ms, in measurement order (may be NULL: summary only) */
    double median, min, max, q1, q3; /* ms */
} gm_timing;

typedef enum {
    GM_CHECK_PASSED = 0,
    GM_CHECK_FAILED,       /* output differs from the CPU reference */
    GM_CHECK_NOT_RUN,      /* the variant could not run at this size (see reason) */
    GM_CHECK_ERROR,        /* a CUDA/collector error stopped the run (see reason) */
    GM_CHECK_NO_REFERENCE  /* measured, nothing to check against: a kernel of someone else's
                              program (gpumem-report -- PROGRAM) has no CPU reference; its
                              output is the program's own (reason says so).  Counted and
                              charted like a pass, never called one */
} gm_check_status;

typedef struct {
    gm_check_status status;
    long long checked;         /* elements compared */
    long long mismatches;
    double tolerance;          /* per-element bound used (abs+rel, see docs); NaN if exact */
    gm_value max_abs_error;
    bool has_first_mismatch;
    long long first_index;
    double first_value, first_expected;
    char *reason;              /* why failed / not run / error; NULL when passed */
} gm_check;

/* Model prediction (issue: address-trace model). */
typedef struct {
    bool present;
    char *method;              /* "address-trace" */
    long long warps_traced;
    long long warps_total;
    bool scaled;               /* a sample of warps was traced and scaled up */
    gm_metric *metrics;        /* predicted values under the same metric names */
    size_t n_metrics;
    char **notes;              /* why prediction may differ (caching, edges...) */
    size_t n_notes;
} gm_prediction;

typedef struct {
    unsigned grid[3];
    unsigned block[3];
    long long shared_bytes;    /* dynamic + static shared memory per block */
    long long registers;       /* per thread; -1 when unknown */
    double theoretical_occupancy; /* % of the SM's warps that the block size, registers and
                                   * shared memory allow (CUDA's occupancy calculator at
                                   * collection); 0 when unknown */
} gm_launch;

/* Per-source-line memory counters of one launch (issue 14): CUPTI's SASS
 * metrics, one extra pass after the counter passes.  A line is a (file, line)
 * of the kernel's source when the kernel carries line info (-lineinfo), else
 * one SASS instruction (line 0, pc its offset in the function). */
typedef enum {
    GM_SL_INST = 0,        /* warp-level instructions executed (smsp__sass_inst_executed) */
    GM_SL_GLOBAL_LD,       /* ..._op_global_ld */
    GM_SL_GLOBAL_ST,       /* ..._op_global_st */
    GM_SL_SHARED_LD,       /* ..._op_shared_ld */
    GM_SL_SHARED_ST,       /* ..._op_shared_st */
    GM_SL_SECTORS,         /* smsp__sass_sectors_mem_global */
    GM_SL_SECTORS_IDEAL,   /* smsp__sass_sectors_mem_global_ideal */
    GM_SL_WAVEFRONTS,      /* smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared */
    GM_SL_WAVEFRONTS_IDEAL,/* ..._ideal */
    GM_SL_N
} gm_sl_counter;

/* The JSON key of each counter ("inst_executed", "sectors", ...). */
extern const char *const gm_sl_counter_keys[GM_SL_N];

typedef struct {
    char *file;            /* source path: relative to the run's source root (gm_srclines.root)
                              when it lies under it, else as the compiler recorded it; NULL
                              when unknown */
    long long line;        /* 1-based; 0: no line info (then pc says which instruction) */
    long long pc;          /* PC offset in the function when line is 0; -1 otherwise */
    char *function;        /* kernel function (mangled, as CUPTI names it) */
    char *text;            /* the line's source text (no newline); NULL when unreadable */
    char *sass;            /* memory instruction classes on the line ("LDG STG"); NULL if none */
    long long count[GM_SL_N];
} gm_srcline;

/* What one launch did to one allocation of device memory: its global
 * accesses (the tracer's per-allocation rows, collectors/gmc_trace.h), for
 * saying which array wastes the sectors.  Only the tracer gives them. */
typedef struct {
    char *name;            /* what points into it: the launch's arguments whose value lies
                              in it ("in", "arg 2 +8 (std::array<char*, 3ul>)"), ", "
                              between; NULL when no argument does */
    long long size;        /* bytes of the allocation; -1: addresses in no known allocation */
    long long loads;       /* warp-level global loads into it */
    long long stores;      /* warp-level global stores (atomics count in neither) */
    long long bytes;       /* bytes the active lanes asked for */
    long long sectors;     /* 32-byte sectors the accesses touched, per access, summed */
    long long sectors_ideal; /* the sectors those bytes would need, summed likewise */
} gm_sl_alloc;

typedef struct {
    bool present;
    char *status;          /* "collected" | "failed" | "off" */
    char *note;            /* why failed, or what to know (e.g. no -lineinfo); NULL */
    gm_value seconds;      /* wall time of the extra pass for this launch */
    bool line_info;        /* the kernel carried line info */
    char *root;            /* the source root (the repository the kernels were built in), which
                              the lines' files are relative to; NULL when unknown (programs,
                              files from before it was recorded) */
    gm_srcline *lines;     /* by file then line (or pc) */
    size_t n_lines;
    gm_sl_alloc *allocs;   /* the allocations the launch touched, most excess sectors
                              first; none from the SASS path and in older files */
    size_t n_allocs;
} gm_srclines;

/* One measured kernel run: one variant (layout) of one experiment at one
 * parameter point. */
typedef struct {
    char *experiment;          /* experiment id, matches a gm_experiment.id */
    char *variant;             /* variant (layout) name, unique within the experiment */
    char *layout;              /* one line: what the layout is */
    char *kernel;              /* kernel function name (demangled when known) */
    gm_param *params;
    size_t n_params;
    bool has_launch;
    gm_launch launch;
    gm_value bytes_read;       /* bytes the computation must read (each input once) */
    gm_value bytes_written;    /* bytes it must write (each output once) */
    gm_value flops;            /* floating-point operations, when meaningful */
    gm_timing timing;
    gm_metric *metrics;
    size_t n_metrics;
    gm_prediction prediction;
    gm_check check;
    char **notes;
    size_t n_notes;
    gm_srclines source_lines;  /* absent (present false) in older files and when off */
    /* A program's launch that could not be replayed (a collective waiting on
     * other GPUs, a CUDA graph that cannot be replayed node by node): why, in
     * words.  Only what one execution gives was measured (its duration);
     * every other metric is absent.  NULL for a run counted in full (and in
     * files written before the field). */
    char *not_replayed;
} gm_run;

/* What an experiment demonstrates; rendered as its section's introduction. */
typedef struct {
    char *id;                  /* "coalescing" */
    char *title;               /* "Coalesced vs strided reads" */
    char *summary;             /* what it demonstrates, a few sentences */
    char *source;              /* which seed document it tests, e.g. "001 (cache lines)" */
    char *sweep_param;         /* param swept along the x axis of a line chart; NULL if none */
    bool sweep_log2;           /* log2 x axis */
    char *series_param;        /* param that splits sweep lines besides the variant; NULL if none */
    bool bandwidth_bound;      /* effective bandwidth vs copy bandwidth is meaningful */
    char *baseline_variant;    /* the reference layout (ratios are against it); NULL: first */
    /* The question the experiment exists to answer: the contrast of two sides
     * at matched parameters (docs/results-format.md, "contrast").  All NULL in
     * files written before the field existed (the report then falls back to
     * fastest against slowest). */
    char *question;            /* in words: "Is interleaved RGB slower than planar ...?" */
    char *contrast_a;          /* side suspected slower: "variant" or "variant@param=value" */
    char *contrast_b;          /* the other side, same syntax */
    char *contrast_at;         /* preferred point "param=value,..."; NULL: the largest work */
    char *contrast_counter;    /* what the contrast is about: "ld_spr", "st_spr",
                                  "shared_wpi", "dram_bytes" or "none" */
} gm_experiment;

typedef struct {
    int ordinal;
    char *name;                /* "NVIDIA H100 80GB HBM3" */
    char *chip;                /* "GH100" (from CUPTI) */
    int cc_major, cc_minor;
    int sm_count;
    long long memory_clock_khz;
    int memory_bus_width_bits;
    gm_value theoretical_bandwidth_gbs;  /* 2 * clock * bus width / 8, GB/s (1e9 B/s) */
    gm_value copy_bandwidth_gbs;         /* measured device-to-device copy, read+write bytes, GB/s */
    gm_value copy_bandwidth_bytes;       /* buffer size of that measurement */
    /* The attainable ceiling: the best of a few plain copy and read kernels
     * (vector widths, grid sizes), useful bytes (read + written) per second,
     * GB/s; absent in files written before it (the report then uses the
     * copy bandwidth and says so). */
    gm_value attainable_bandwidth_gbs;
    char *attainable_kernel;             /* which kernel gave it: "copy float4, grid 4 x SMs" */
    long long l2_bytes;
    long long global_memory_bytes;
    char *driver_version;      /* kernel driver, e.g. "580.159.04"; NULL if unknown */
    int cuda_driver_api;       /* cudaDriverGetVersion, e.g. 13000 */
    int cuda_runtime;          /* cudaRuntimeGetVersion, e.g. 13000 */
    long long cupti_api;       /* cuptiGetVersion */
} gm_device;

/* Which process collected: where it ran among many (a rank of an MPI job or
 * a Slurm task) and whether it waited for another process's turn on the GPU
 * (devlock.h).  Absent (present = false) in files written before it existed;
 * written only when present. */
typedef struct {
    bool present;
    char *host;                /* host name up to its first dot */
    gm_value rank;             /* INT from the launcher's variable (pathpat.h: RANK,
                                  SLURM_PROCID, ...); ABSENT when no launcher set one */
    char *rank_var;            /* the variable it came from; NULL when none */
    long long pid;
    char *device_uuid;         /* "GPU-8c1f...": the lock's key; NULL if unknown */
    gm_value lock_wait_seconds;/* waited for other processes using the GPU; ABSENT: no lock */
    long long lock_waits;      /* turns that had to wait */
    long long lock_turns;      /* turns taken (one per collection or program run: the
                                  lock is held from the first profiled launch to exit) */
} gm_process;

/* Ranks are whole numbers below GM_RANK_LIMIT (2^20): a launcher's variable
 * past it is refused (pathpat.h), and so is a file recording one (merge.h). */
#define GM_RANK_LIMIT 1048576LL

typedef struct {
    char **metrics;            /* metric names requested, in order */
    size_t n_metrics;
    int passes;                /* profiler passes needed for that set; -1 when unknown */
    char *range_mode;          /* "auto" | "user" */
    char *replay_mode;         /* "user" | "kernel" | "application" */
    bool cache_flush;          /* L2 flushed before each profiled pass */
    char *clock_control;       /* "none" (clocks as found) | "base" ... */
    char *size_set;            /* "full" | "quick" | "app" */
    int timing_warmup;
    int timing_repetitions;
    gm_value profile_seconds;  /* wall time spent profiling */
    gm_value total_seconds;    /* wall time of the whole collection */
    bool source_lines;         /* the per-source-line pass ran (or was tried) */
    gm_value source_lines_seconds; /* its wall time, all launches together */
    long long source_lines_launches; /* launches it instrumented */
    long long source_lines_processes; /* the suite's tracer: its processes at once
                                         (0: not recorded; files before it: one) */
    char *source_lines_method; /* "trace" (Compute Sanitizer, one extra run for all
                                  kernels) or "sass" (CUPTI SASS metrics, one run per
                                  kernel); NULL: "sass" (files written before it) */
    char *source_lines_fallback; /* why the tracer was not used; NULL when it was, or
                                    when the SASS path was asked for */
    char **command;            /* argv that produced the run */
    size_t n_command;
    gm_process process;        /* the process that collected (absent: not recorded) */
    gm_process *ranks;         /* a merged file (gpumem-report merge): the process of each
                                  file merged, in rank order; runs carry a "rank" param */
    size_t n_ranks;
    char *partial;             /* the collection stopped before its end (why, as said then):
                                  the runs are those completed; NULL: it ran to its end */
} gm_collection;

typedef struct {
    int schema_version;
    char *origin;              /* "measured" | "hand-written fixture" | ... */
    char *tool_version;
    char *commit;              /* git commit id of the tree; NULL if none */
    int dirty;                 /* 1 dirty, 0 clean, -1 unknown */
    char *taken_at;            /* ISO 8601 UTC; never rendered unless asked */
    gm_device device;
    gm_collection collection;
    gm_experiment *experiments;
    size_t n_experiments;
    gm_run *runs;
    size_t n_runs;
} gm_results;

/* ---- reading and writing ------------------------------------------------- */

/* Parse a results file.  On failure returns a status and fills err with a
 * message naming the file and, as applicable, line and column (GM_ERR_PARSE),
 * the schema found (GM_ERR_SCHEMA) or the JSON path of the field and what was
 * expected (GM_ERR_FIELD, e.g. "runs[3].timing.samples[2]: expected a number,
 * found a string").  *out is left zeroed on failure. */
gm_status gm_results_read_file(const char *path, gm_results *out, gm_error *err);
/* The same, also giving the file's text as read (*text, caller frees; NULL
 * on failure): what `history add` keeps whole. */
gm_status gm_results_read_file_text(const char *path, gm_results *out, char **text,
                                    gm_error *err);

/* What a file read is checked for beyond its types (GM_ERR_VALUE naming the
 * file, the JSON path such as runs[12].timing.median, and the value):
 *   - counts, byte counts, flops, metric values, launch_min/max and the
 *     model's warps: >= 0 and at most GM_INT_LIMIT (2^53, the largest integer
 *     a double holds exactly: the difference of two fits in 64 bits and every
 *     consumer computing in doubles is exact);
 *   - times (timing min, q1, median, q3, max, samples): finite, >= 0, and
 *     min <= q1 <= median <= q3 <= max among those that are not null.
 * A UTF-8 byte order mark at the start is skipped. */
#define GM_INT_LIMIT 9007199254740992LL

/* The input rule of every results file read (gm_results_read_file*):
 *   - what the path names is a regular file, or a pipe handed over as
 *     /dev/stdin or /dev/fd/N; a directory, a device (/dev/zero, a terminal),
 *     a socket or a named FIFO is refused before a byte is read, the message
 *     naming what it is;
 *   - text that is empty or does not begin with '{' (Markdown, a log, a CSV;
 *     a JSON array is told its top level is not an object) is "not a results
 *     file", not a JSON parser's complaint (also for gm_results_read_string).
 * The largest results file read: a bigger one (or a stream that goes on past
 * it) is refused with "input too large" before it fills memory; a raw NUL
 * byte (a binary file) is refused where it is met.  Default
 * GM_RESULTS_SIZE_LIMIT (1 GiB; a 200 MB file of 30,000 runs renders in well
 * under 4x its size); the CLI takes $GPUMEM_REPORT_MAX_INPUT.  0 restores the
 * default. */
#define GM_RESULTS_SIZE_LIMIT ((size_t)1 << 30)
void gm_results_set_size_limit(size_t bytes);
size_t gm_results_size_limit(void);
gm_status gm_results_read_string(const char *json, const char *name, gm_results *out,
                                 gm_error *err);

/* Serialise to JSON text (2-space indent, keys in a fixed order, one trailing
 * newline).  Caller frees.  Byte-identical for identical input. */
char *gm_results_to_json(const gm_results *r);

/* Write to path through a temporary file in the same directory, then rename:
 * on failure nothing is left at path. */
gm_status gm_results_write_file(const gm_results *r, const char *path, gm_error *err);

void gm_results_free(gm_results *r);
void gm_process_free(gm_process *p);
/* A deep copy of src into dst (dst's old contents are not freed). */
void gm_process_copy(gm_process *dst, const gm_process *src);

/* ---- building (GPU side) and querying (CPU side) ------------------------- */

void gm_results_init(gm_results *r);           /* zero + schema version + tool version */
/* The time now as taken_at holds it, ISO 8601 UTC ("2026-11-22T08:15:00Z").
 * Caller frees. */
char *gm_results_utc_now(void);
/* A run appended with every value absent (check status not-run until set,
 * tolerance NaN, launch registers -1); the pointer is valid until the next add. */
gm_run *gm_results_add_run(gm_results *r);
gm_experiment *gm_results_add_experiment(gm_results *r);
void gm_run_set_param(gm_run *run, const char *name, gm_value v);   /* takes v's string */
void gm_run_set_metric(gm_run *run, const char *name, gm_value v, const char *unit);
void gm_run_add_note(gm_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gm_timing_set_samples(gm_timing *t, const double *ms, size_t n); /* copies, summarises */

const gm_metric *gm_run_metric(const gm_run *run, const char *name);    /* NULL if none */
double gm_run_metric_num(const gm_run *run, const char *name);          /* NaN if absent */
/* How many runs have a time, and how many of those were timed behind the
 * launch gate (timing.gated); timed may be NULL. */
size_t gm_results_count_gated(const gm_results *r, size_t *timed);
const gm_param *gm_run_param(const gm_run *run, const char *name);
/* A program run's NVTX range ("outer/inner"), from the note the injection
 * library writes (GM_NOTE_NVTX_RANGE then the range); NULL outside every
 * range and for the suite's runs. */
#define GM_NOTE_NVTX_RANGE "NVTX range: "
const char *gm_run_nvtx_range(const gm_run *run);
const gm_experiment *gm_results_experiment(const gm_results *r, const char *id);
const gm_metric *gm_prediction_metric(const gm_prediction *p, const char *name);

/* Free what sl holds and zero it (present false). */
void gm_srclines_clear(gm_srclines *sl);

/* Effective bandwidth in GB/s: (bytes_read + bytes_written) / median time; NaN if unknown. */
double gm_run_effective_gbs(const gm_run *run);

const char *gm_check_status_name(gm_check_status s);  /* "passed", "failed", "not-run", "error" */

/* Theoretical DRAM bandwidth in GB/s (1e9 B/s) from the memory clock and bus
 * width: 2 transfers per clock (DDR) * clock * width / 8.  NaN if either is <= 0. */
double gm_theoretical_dram_gbs(long long memory_clock_khz, int bus_width_bits);

#define GM_TOOL_VERSION "0.1.0"

#ifdef __cplusplus
}
#endif

#endif

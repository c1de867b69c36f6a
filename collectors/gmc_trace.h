/* gmc_trace.h — per-instruction memory counts of chosen kernel launches in
 * the program's own process, through the Compute Sanitizer API (issue 25).
 * Equal to Nsight Compute's Source page on every line of tests/gpu/
 * trace_vs_ncu (global sectors and their ideal, shared wavefronts and theirs;
 * bench/results/trace-vs-ncu-2026-11-27-d49ff0f.txt).
 *
 * What CUPTI 13.0's SASS metrics cannot do (one kernel function per process,
 * collectors/gmc_sass.h), this does for every launch of a traced pass: the
 * sanitizer patches each global and shared memory instruction of a module to
 * call the device functions of collectors/trace_patch.cu, which see each
 * thread's PC, address, size and kind.  Per warp-level access the leader lane
 * applies the hardware's rules (core/warp_rules.h, the functions the CPU model
 * uses): distinct 32-byte sectors and the ideal for those bytes, shared
 * wavefronts and the conflict-free count, and adds them to a table in device
 * memory keyed by (PC, launch, allocation).  Only the table is read back.
 *
 *     gmc_trace *t;
 *     gmc_trace_open(&cfg, &t, &err);      before the process's first CUDA call,
 *                                          and before any CUPTI subscriber
 *     ... the program loads modules, allocates, launches (untraced) ...
 *     gmc_trace_begin(t, &err);
 *     ... launches: each one traced ...
 *     gmc_trace_end(t, &pass, &err);       waits, reads back, unpatches
 *     pass.launches[i].records             core/srclines.h records, file:line
 *     gmc_trace_pass_free(&pass);
 *     gmc_trace_close(t);
 *
 * Records have gmc_sass's form (gm_sl_record: function, PC offset in the
 * function, file and line from the module's cubin through CUPTI's SASS-to-
 * source correlation, counts in gm_sl_counter order), so core/srclines.c
 * turns them into lines unchanged.  One difference: GM_SL_INST counts the
 * executions of memory instructions only (the patch sees no other
 * instruction), not smsp__sass_inst_executed of every instruction.
 *
 * Allocations: the tracer follows device allocations and frees (the
 * sanitizer's resource callbacks); each pass uploads the live ones as a
 * sorted (base, size) table, and global accesses are also counted per
 * allocation, so a report can say which array wastes the bytes.
 *
 * Patching (gmc_trace_config.patching): with GMC_TRACE_PATCH_WHILE_TRACING
 * (the default) a module is patched only while a pass is open, so untraced
 * launches run the original code, as fast as before patching; with
 * GMC_TRACE_PATCH_ON_LOAD every module is patched when it loads and untraced
 * launches run the patched code with the patch disabled (callback data NULL),
 * measured 12 (a copy) to 215 (a loop of shared loads) times slower on the
 * H200.  A traced launch: 69 and 2050 times its untraced time there, plus
 * ~35 ms a pass (tests/gpu/trace_vs_ncu).
 *
 * With GMC_TRACE_PATCH_PER_LAUNCH a pass stays open for the whole program
 * and traces only the launches cfg.select chooses: a module is patched at a
 * chosen launch of one of its functions, the launch is read back when it
 * ends (the sanitizer's launch-end callback waits for its stream) and handed
 * to cfg.on_flush as a pass of its own, and the module is unpatched at once,
 * so the program's other launches run the original code and the table holds
 * one launch at a time (collectors/trace_mode.c: one run of a program for
 * all its kernels).  With cfg.arguments each traced launch keeps its
 * argument bytes (from the driver's launch call) and their layout
 * (cuFuncGetParamInfo), so that a caller can say which argument points into
 * which allocation.
 *
 * CUPTI: once the sanitizer has subscribed, cuptiSubscribe and the range
 * profiler fail for the rest of the process (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_
 * NOT_SUPPORTED, also after gmc_trace_detach), and once CUPTI has been used,
 * the tracer subscribes but gets no launch (CUDA 13.0, driver 580).  So trace
 * in a process that takes no counters.  CUPTI's cubin utilities (CRC, SASS-to-
 * source correlation) need no subscriber and work beside it.
 *
 * Not thread-safe against itself: begin and end from one thread; launches in
 * the pass from any thread of the process, in its contexts' streams.  Graph
 * launches, cp.async copies, matrix loads (ldmatrix) and bulk copies are not
 * counted.  Failures of the sanitizer API are GMC_ERR_CUDA with the call in
 * the message.  Library code: returns a status, never prints or exits.
 */
#ifndef GMC_TRACE_H
#define GMC_TRACE_H

#include "gm_collector.h"
#include "gmc_trace_dev.h"

#include "../core/srclines.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GMC_TRACE_PATCH_WHILE_TRACING = 0,
    GMC_TRACE_PATCH_ON_LOAD = 1,
    GMC_TRACE_PATCH_PER_LAUNCH = 2
} gmc_trace_patching;

typedef struct gmc_trace_pass gmc_trace_pass;

typedef struct {
    gmc_trace_patching patching;
    size_t table_slots;          /* counter table entries, a power of two (128 bytes each) */
    size_t max_launches;         /* traced launches per pass; later ones run untraced */
    bool per_allocation;         /* count global accesses per allocation too */
    size_t shards;               /* copies of each entry, by SM (a power of two, <= 64):
                                    fewer atomics on one address, more slots used */
    unsigned probe;              /* GMT_PROBE_* (gmc_trace_dev.h): for measuring the
                                    tracer's own cost; 0 counts */
    /* Which launches of an open pass are traced: called once for every launch
     * while a pass is open, in the order the process makes them, under the
     * tracer's lock, with the function's name as the driver gives it
     * (mangled) and the launch's grid id (gmc_trace_launch.grid_id); true
     * traces it.  NULL: every launch. */
    bool (*select)(void *user, const char *function, unsigned long long grid_id);
    /* PATCH_PER_LAUNCH: each traced launch, read back when it ends (from the
     * sanitizer's launch-end callback, under the tracer's lock), as a pass
     * of its own; freed when it returns.  Required with PER_LAUNCH. */
    void (*on_flush)(void *user, const gmc_trace_pass *pass);
    void *user;                  /* for select and on_flush */
    bool arguments;              /* keep each traced launch's arguments */
} gmc_trace_config;

/* GMC_TRACE_PATCH_WHILE_TRACING, 2^18 slots (30 MiB), 1024 launches, per
 * allocation on, 1 shard (16 changed nothing measurable on the H200), no
 * probe. */
gmc_trace_config gmc_trace_config_default(void);

/* Row allocation values besides an index into gmc_trace_pass.allocs. */
enum {
    GMC_TRACE_ALL = -2,          /* the instruction's totals */
    GMC_TRACE_NO_ALLOC = -1      /* lanes whose address lay in no known allocation */
};

typedef struct {
    unsigned long long pc;       /* offset in the launched function (outside: absolute) */
    int alloc;                   /* GMC_TRACE_ALL, GMC_TRACE_NO_ALLOC or an allocation */
    bool outside;                /* the PC lies outside the function's code */
    long long c[GMT_NC];         /* counters: gmt_counter (gmc_trace_dev.h) */
} gmc_trace_row;

typedef struct {
    char *function;              /* mangled, as the driver names it */
    unsigned long long grid_id;  /* the driver's id of the launch */
    uint64_t cubin_crc;          /* CUPTI's CRC of the module's cubin; 0 when unknown */
    uint64_t function_pc;        /* where the function's code starts (PCs are offsets from it) */
    uint64_t function_size;      /* bytes; 0 when the sanitizer could not say */
    gm_sl_record *records;       /* one per memory instruction, by PC (totals) */
    size_t n_records;
    gmc_trace_row *rows;         /* totals and per-allocation rows, by PC then allocation */
    size_t n_rows;
    size_t pcs_outside;          /* instructions outside the function's code (a device
                                    function not inlined, within 16 MiB): their pc is an
                                    absolute address */
    /* cfg.arguments: the launch's argument bytes, each at its offset, and
     * each argument's offset and size; NULL and 0 when unknown (a launch
     * through an entry point the tracer does not read, or no layout) */
    unsigned char *params;
    size_t params_size;
    gm_sl_param *layout;
    size_t n_params;
    /* the module's cubin (a copy), when some record has no line info and no
     * earlier launch of the pass holds the same cubin; NULL otherwise */
    void *cubin;
    size_t cubin_size;
} gmc_trace_launch;

typedef struct {
    unsigned long long base, size;
} gmc_trace_alloc;

struct gmc_trace_pass {
    gmc_trace_launch *launches;  /* in launch order */
    size_t n_launches;
    gmc_trace_alloc *allocs;     /* the allocation table of the pass, by base */
    size_t n_allocs;
    long long dropped;           /* warp accesses not counted: the table was full, or
                                    the instruction lay over 16 MiB from the function */
    size_t launches_untraced;    /* launches in the pass that were not traced (past
                                    max_launches, in a context the pass did not start in,
                                    or of a function the sanitizer could not place) */
    size_t modules_patched;      /* modules patched for the pass */
};

typedef struct gmc_trace gmc_trace;

/* Subscribe to the sanitizer's module, memory and launch callbacks.  Call it
 * before the process's first CUDA call: a module loaded earlier is learnt at
 * its first traced launch, without its cubin (no lines), and allocations made
 * earlier are not named.  One tracer per process (the sanitizer allows one
 * subscriber). */
gmc_status gmc_trace_open(const gmc_trace_config *cfg, gmc_trace **out, gmc_error *err);

/* Open a pass: from now until gmc_trace_end every kernel launch (that
 * cfg.select chooses) is traced.  Patches the modules loaded so far
 * (WHILE_TRACING); modules that load during the pass are patched as they
 * load.  PER_LAUNCH patches nothing here (see above). */
gmc_status gmc_trace_begin(gmc_trace *t, gmc_error *err);

/* Close the pass: wait for its launches, read the table back, map PCs to
 * functions and lines, unpatch (WHILE_TRACING).  *out is owned by the caller
 * (gmc_trace_pass_free); zeroed on failure. */
gmc_status gmc_trace_end(gmc_trace *t, gmc_trace_pass *out, gmc_error *err);

void gmc_trace_pass_free(gmc_trace_pass *p);

/* Outside a pass: patch (true) or unpatch (false) every module loaded so far,
 * with the patch disabled for launches.  For measuring what patched code
 * costs untraced launches. */
gmc_status gmc_trace_set_patched(gmc_trace *t, bool patched, gmc_error *err);

/* Let go of the sanitizer (sanitizerUnsubscribe) and take it again, outside a
 * pass, keeping what was seen.  CUPTI's profiler cannot be initialized while a
 * sanitizer subscriber exists (cuptiProfilerInitialize:
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, measured on the H200 with
 * CUDA 13.0).  Modules that load while detached are learnt at their first
 * traced launch, without their cubin (no lines); allocations made while
 * detached are not named. */
gmc_status gmc_trace_detach(gmc_trace *t, gmc_error *err);
gmc_status gmc_trace_attach(gmc_trace *t, gmc_error *err);

/* Unsubscribe and free (modules are left as they are); t may be NULL. */
void gmc_trace_close(gmc_trace *t);

#ifdef __cplusplus
}
#endif

#endif

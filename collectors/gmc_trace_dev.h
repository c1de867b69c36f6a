/* gmc_trace_dev.h — the memory that the tracer's device patch
 * (collectors/trace_patch.cu) and its host side (collectors/gmc_trace.c)
 * share: the header each traced launch gets as its callback data, the
 * allocation table, and the counter table.  Plain C types only: the header
 * is compiled by nvcc for the patch and by the C compiler for the host.
 *
 * The counter table is an open-addressing hash table of 64-bit keys: the
 * instruction (its offset from the launched function's first instruction),
 * the launch, the allocation, the shard.  One entry per memory instruction and
 * launch holds the instruction's totals (allocation GMT_ALLOC_ALL); for global
 * accesses, when an allocation table is given, one more per allocation the
 * warp's lanes touched.  The leader lane of each warp-level access finds its
 * key or claims a free slot with one compare-and-swap on the key, and adds
 * its counts with atomics.  Nothing per access leaves the GPU.
 *
 * Shards: every warp of a kernel adds to the same few entries, and atomics on
 * one address serialize, so a key may exist once per shard (the SM's number
 * modulo `shards`); the host adds the shards up.
 */
#ifndef GMC_TRACE_DEV_H
#define GMC_TRACE_DEV_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Counters of one entry (and of gmc_trace_row, gmc_trace.h). */
typedef enum {
    GMT_INST = 0,          /* warp-level executions seen (at least one lane active) */
    GMT_GLOBAL_LD,         /* of which global loads (the access read, did not write) */
    GMT_GLOBAL_ST,         /* global stores (wrote, did not read) */
    GMT_SHARED_LD,
    GMT_SHARED_ST,
    GMT_SECTORS,           /* distinct 32-byte sectors, summed (global) */
    GMT_SECTORS_IDEAL,     /* ceil(distinct bytes / 32), summed (global) */
    GMT_WAVEFRONTS,        /* shared wavefronts, summed */
    GMT_WAVEFRONTS_IDEAL,  /* ceil(distinct bytes / 128), summed (shared): ncu's ideal */
    GMT_ATOMIC,            /* executions that read and wrote: atomics and reductions */
    GMT_LANES,             /* active lanes, summed */
    GMT_BYTES,             /* bytes the active lanes asked for, summed */
    GMT_SECTORS_IDEAL_REQ, /* ceil(requested bytes / 32), summed: another reading of the ideal */
    GMT_WAVEFRONTS_PHASES, /* shared phases with an active lane, summed: the model's ideal */
    GMT_NC
} gmt_counter;

#define GMT_ALLOC_ALL 0xffffu   /* the instruction's totals */
#define GMT_ALLOC_NONE 0xfffeu  /* lanes whose address is in no allocation of the table */
#define GMT_MAX_ALLOCS 0xfff0u
#define GMT_MAX_LAUNCHES 0xffffu
#define GMT_MAX_SHARDS 64

/* The key: bit 63 set (0 is a free slot), the shard, the launch, the
 * allocation, and the instruction's offset from the function's first
 * instruction plus GMT_KEY_PC_BIAS (instructions up to 16 MiB either side;
 * one farther away is not counted but adds to `dropped`). */
#define GMT_KEY_USED (1ull << 63)
#define GMT_KEY_SHARD_SHIFT 57
#define GMT_KEY_LAUNCH_SHIFT 41
#define GMT_KEY_ALLOC_SHIFT 25
#define GMT_KEY_PC_BITS 25
#define GMT_KEY_PC_BIAS (1ull << 24)

/* Cost probes (gmt_launch.probe), for measuring the tracer's own cost only. */
#define GMT_PROBE_NO_RULES 1u   /* count executions and lanes, skip the rules */
#define GMT_PROBE_NO_TABLE 2u   /* apply the rules, add nothing to the table */

typedef struct {
    unsigned long long key;          /* 0: free */
    unsigned long long c[GMT_NC];
} gmt_entry;

typedef struct {
    unsigned long long base, size;   /* sorted by base, disjoint */
} gmt_alloc;

/* One per traced launch, in device memory: the patch's callback data. */
typedef struct {
    gmt_entry *table;
    unsigned long long *dropped;     /* accesses not counted: table full, PC out of range */
    const gmt_alloc *allocs;
    unsigned long long function_pc;  /* the launched function's first instruction */
    unsigned int mask;               /* table slots - 1 (slots: a power of two) */
    unsigned int launch;             /* the launch's index in the traced pass */
    unsigned int n_allocs;
    unsigned int shards;             /* a power of two, at most GMT_MAX_SHARDS */
    unsigned int probe;              /* GMT_PROBE_*: 0 normally */
    unsigned int reserved;
} gmt_launch;

#ifdef __cplusplus
}
#endif

#endif

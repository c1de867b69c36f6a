/* gmc_trace_dev.h — the memory that the tracer's device patch
 * (collectors/trace_patch.cu) and its host side (collectors/gmc_trace.c)
 * share: the header each traced launch gets as its callback data, the
 * allocation table, and the counter table.  Plain C types only: the header
 * is compiled by nvcc for the patch and by the C compiler for the host.
 *
 * The counter table is an open-addressing hash table of (PC, tag) keys, tag
 * = launch << 16 | allocation: one entry per memory instruction and launch
 * for the instruction's totals (allocation GMT_ALLOC_ALL) and, for global
 * accesses when an allocation table is given, one per allocation the warp's
 * lanes touched.  The leader lane of each warp-level access claims an entry
 * (state 0 -> 1 by compare-and-swap, key written, state 2) or finds it, and
 * adds its counts with atomics.  Nothing per access leaves the GPU.
 *
 * Every warp of a kernel adds to the same few entries, and atomics on one
 * address serialize: so each key exists once per shard, the shard being the
 * SM's number modulo `shards`, kept in the top bits of the stored PC
 * (GMT_SHARD_SHIFT; PCs are 49-bit addresses), and the host adds the shards up.
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
    GMT_WAVEFRONTS_IDEAL,  /* shared phases with an active lane, summed */
    GMT_ATOMIC,            /* executions that read and wrote: atomics and reductions */
    GMT_LANES,             /* active lanes, summed */
    GMT_BYTES,             /* bytes the active lanes asked for, summed */
    GMT_SECTORS_IDEAL_REQ, /* ceil(requested bytes / 32), summed: another reading of the ideal */
    GMT_WAVEFRONTS_IDEAL_BYTES, /* ceil(distinct bytes / 128), summed: another reading */
    GMT_NC
} gmt_counter;

#define GMT_ALLOC_ALL 0xffffu   /* the instruction's totals */
#define GMT_ALLOC_NONE 0xfffeu  /* lanes whose address is in no allocation of the table */
#define GMT_MAX_ALLOCS 0xfff0u
#define GMT_MAX_LAUNCHES 0xffffu
#define GMT_SHARD_SHIFT 58      /* the shard in a stored PC's bits 58..63 */
#define GMT_MAX_SHARDS 64

enum { GMT_FREE = 0, GMT_CLAIMED = 1, GMT_READY = 2 };

typedef struct {
    unsigned long long pc;     /* the instruction's address as the patch sees it, the
                                  shard in the top bits */
    unsigned int tag;          /* launch << 16 | allocation */
    unsigned int state;        /* GMT_FREE, GMT_CLAIMED, GMT_READY */
    unsigned long long c[GMT_NC];
} gmt_entry;

typedef struct {
    unsigned long long base, size;   /* sorted by base, disjoint */
} gmt_alloc;

/* One per traced launch, in device memory: the patch's callback data. */
typedef struct {
    gmt_entry *table;
    unsigned long long *dropped;     /* accesses not counted: the table was full */
    const gmt_alloc *allocs;
    unsigned int mask;               /* table slots - 1 (slots: a power of two) */
    unsigned int launch;             /* the launch's index in the traced pass */
    unsigned int n_allocs;
    unsigned int shards;             /* a power of two, at most GMT_MAX_SHARDS */
} gmt_launch;

#ifdef __cplusplus
}
#endif

#endif

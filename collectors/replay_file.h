/* replay_file.h — the launches a program's counted run keeps for its per-line
 * pass (issue 25): the first launch of each profiled kernel, as it was about
 * to run, written to the run's private directory so that a process of its
 * own can make it again under the Compute Sanitizer's tracer, without
 * running the program again.
 *
 * The driver lets the tracer and CUPTI's profiler share no process (bench/
 * results/trace-vs-ncu-2026-11-27-d49ff0f.txt, part 3), so the counted run
 * (collectors/inject_replay.c) keeps, for each kernel, what the launch needs:
 * its module's cubin, its function, grid, block, shared memory, cluster and
 * argument bytes, and the device memory its arguments point into (the whole
 * allocation each argument word lies in, copied just before the launch).
 * `gpumem-report trace-replay` (cli/cmd_replay.c) loads the cubin, allocates
 * each allocation again, fills it, moves the argument words that point into
 * it to the new place (gm_rp_relocate: the offsets inside each allocation,
 * and so every address modulo 256 bytes, stay the same, so sectors and bank
 * conflicts do too), and launches, traced.
 *
 * The manifest, "replay.txt" in the directory, tab-separated:
 *
 *     # gpumem-report replay 1
 *     @device  ORDINAL
 *     @launch  INDEX  SYMBOL  CUBIN  GX,GY,GZ  BX,BY,BZ  SHM  CX,CY,CZ  COOP  ARGS  ARGS_SIZE
 *     @mem     BASE  SIZE  FILE          the launch's allocations (BASE in hex)
 *     @skip    INDEX  KERNEL  WHY        a kernel that could not be kept
 *
 * INDEX is the launch's place among the program's launches, SYMBOL its
 * function's mangled name, CUBIN and ARGS and FILE names of files in the
 * directory, KERNEL a demangled name, CX,CY,CZ the cluster (0,0,0: none),
 * COOP 1 for a cooperative launch.  Pure: no CUDA header. */
#ifndef GM_REPLAY_FILE_H
#define GM_REPLAY_FILE_H

#include "../core/buf.h"
#include "../core/gm_error.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GM_RP_HEADER "# gpumem-report replay 1"
#define GM_RP_MANIFEST "replay.txt"

typedef struct {
    unsigned long long base, size;   /* the allocation in the counted run */
    char *file;                      /* its bytes */
} gm_rp_mem;

typedef struct {
    long long index;
    char *symbol;                    /* mangled */
    char *cubin;
    unsigned grid[3], block[3], shm, cluster[3];
    bool cooperative;
    char *args;
    size_t args_size;
    gm_rp_mem *mems;
    size_t n_mems;
} gm_rp_launch;

typedef struct {
    long long index;
    char *kernel;                    /* demangled */
    char *why;
} gm_rp_skip;

typedef struct {
    int device;                      /* -1: not said */
    gm_rp_launch *launches;
    size_t n_launches;
    gm_rp_skip *skips;
    size_t n_skips;
} gm_replay;

/* One launch's lines (@launch and its @mem lines), a skip's, the header's
 * and the device's. */
void gm_rp_write_header(gm_buf *b, int device);
void gm_rp_write_launch(gm_buf *b, const gm_rp_launch *l);
void gm_rp_write_skip(gm_buf *b, long long index, const char *kernel, const char *why);

/* Parse a manifest; name in messages ("NAME:LINE: ..."). */
gm_status gm_rp_parse(const char *text, const char *name, gm_replay *out, gm_error *err);
void gm_rp_free(gm_replay *r);

/* Move every 8-byte word at an 8-byte offset of args[0..n) that points into
 * (or one past the end of) mems[i] to to[i] plus the same offset; returns the
 * words moved.  An address inside an allocation wins over one just past the
 * end of another. */
size_t gm_rp_relocate(unsigned char *args, size_t n, const gm_rp_mem *mems, size_t n_mems,
                      const unsigned long long *to);

#ifdef __cplusplus
}
#endif

#endif

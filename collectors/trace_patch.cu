/* trace_patch.cu — the tracer's device patch (collectors/gmc_trace.h): the
 * functions the Compute Sanitizer calls before every global and shared
 * memory instruction of a patched module, in every thread that executes it.
 *
 * Compiled as a tools patch (nvcc --fatbin -Xptxas --compile-as-tools-patch,
 * see the Makefile) and embedded in the library as a byte array, loaded with
 * sanitizerAddPatches.  The callback data is the launch's gmt_launch
 * (gmc_trace_dev.h), or NULL for a launch that is not traced: then the patch
 * returns at once.
 *
 * Per warp-level access: the lanes at this PC (__match_any_sync on the PC
 * among __activemask()) share their addresses with __shfl_sync; the lowest of
 * them applies the hardware's rules (core/warp_rules.h, the same functions as
 * the CPU model) and adds the counts to the instruction's entry of the table
 * with atomics.  For the per-allocation rows the lanes of each allocation
 * (__match_any_sync on the allocation's index) do the same for their own
 * lanes.  The loops over lanes are unrolled, so the addresses stay in
 * registers; only a warp whose lanes are out of address order, or a shared
 * phase that may conflict, goes through the sort in local memory.
 */
#include <sanitizer_patching.h>

#include "gmc_trace_dev.h"

#include "../core/warp_rules.h"

static __device__ __forceinline__ unsigned S_lane(void)
{
    unsigned l;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
}

static __device__ __forceinline__ unsigned S_smid(void)
{
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

/* The allocation holding address a (binary search of the sorted table), or
 * GMT_ALLOC_NONE. */
static __device__ unsigned S_alloc_of(const gmt_launch *L, unsigned long long a)
{
    unsigned lo = 0, hi = L->n_allocs;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (a < L->allocs[mid].base)
            hi = mid;
        else if (a - L->allocs[mid].base >= L->allocs[mid].size)
            lo = mid + 1;
        else
            return mid;
    }
    return GMT_ALLOC_NONE;
}

/* The entry of key: found, or a free slot claimed with one compare-and-swap
 * (a key never changes once written, so a slot that holds another key is
 * passed); NULL when the table is full. */
static __device__ gmt_entry *S_entry(const gmt_launch *L, unsigned long long key)
{
    unsigned i = (unsigned)((key ^ key >> 29) * 0x9E3779B97F4A7C15ull >> 32) & L->mask;
    for (unsigned probe = 0; probe <= L->mask; probe++, i = (i + 1) & L->mask) {
        gmt_entry *e = &L->table[i];
        unsigned long long k = *(volatile unsigned long long *)&e->key;
        if (k == 0)
            k = atomicCAS(&e->key, 0ull, key);
        if (k == 0 || k == key)
            return e;
    }
    return NULL;
}

/* Add one warp-level access: its counts c (GMT_INST..GMT_NC) and one to the
 * kind counter `kind`. */
static __device__ void S_add(const gmt_launch *L, unsigned long long pc, unsigned alloc,
                             int kind, const unsigned long long c[GMT_NC])
{
    unsigned long long off = pc - L->function_pc + GMT_KEY_PC_BIAS;
    if (off >> GMT_KEY_PC_BITS) {
        atomicAdd(L->dropped, 1ull);
        return;
    }
    unsigned long long shard = S_smid() & (L->shards - 1);
    unsigned long long key = GMT_KEY_USED | shard << GMT_KEY_SHARD_SHIFT |
                             (unsigned long long)L->launch << GMT_KEY_LAUNCH_SHIFT |
                             (unsigned long long)alloc << GMT_KEY_ALLOC_SHIFT | off;
    gmt_entry *e = S_entry(L, key);
    if (!e) {
        atomicAdd(L->dropped, 1ull);
        return;
    }
    atomicAdd(&e->c[kind], 1ull);
#pragma unroll
    for (int k = 0; k < GMT_NC; k++)
        if (c[k])
            atomicAdd(&e->c[k], c[k]);
}

/* Kind counter of an access by its flags: read only, write only, or both. */
static __device__ int S_kind(bool shared, uint32_t flags)
{
    bool rd = flags & SANITIZER_MEMORY_DEVICE_FLAG_READ, wr = flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE;
    if (rd && wr)
        return GMT_ATOMIC;
    if (wr)
        return shared ? GMT_SHARED_ST : GMT_GLOBAL_ST;
    return shared ? GMT_SHARED_LD : GMT_GLOBAL_LD;
}

static __device__ void S_zero(unsigned long long c[GMT_NC])
{
#pragma unroll
    for (int k = 0; k < GMT_NC; k++)
        c[k] = 0;
}

/* The counts of one global access by the lanes of mask. */
static __device__ void S_global_counts(const gmt_launch *L, unsigned size, const uint64_t addr[32],
                                       uint32_t mask, unsigned long long c[GMT_NC])
{
    S_zero(c);
    c[GMT_INST] = 1;
    c[GMT_LANES] = (unsigned long long)__popc(mask);
    c[GMT_BYTES] = c[GMT_LANES] * size;
    if (L->probe & GMT_PROBE_NO_RULES)
        return;
    gm_wr_global g;
    gm_wr_global_count(size, addr, mask, &g);
    c[GMT_SECTORS] = (unsigned long long)g.sectors;
    c[GMT_SECTORS_IDEAL] = (unsigned long long)g.sectors_ideal;
    c[GMT_SECTORS_IDEAL_REQ] = (unsigned long long)g.sectors_ideal_requested;
}

static __device__ void S_shared_counts(const gmt_launch *L, unsigned size, const uint64_t addr[32],
                                       uint32_t mask, uint32_t flags,
                                       unsigned long long c[GMT_NC])
{
    S_zero(c);
    c[GMT_INST] = 1;
    c[GMT_LANES] = (unsigned long long)__popc(mask);
    c[GMT_BYTES] = c[GMT_LANES] * size;
    if (L->probe & GMT_PROBE_NO_RULES)
        return;
    gm_wr_shared w;
    gm_wr_shared_count(!(flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE), size, addr, mask, &w);
    c[GMT_WAVEFRONTS] = (unsigned long long)w.wavefronts;
    c[GMT_WAVEFRONTS_IDEAL] = (unsigned long long)gm_wr_shared_ideal(w.wavefronts, size, mask);
    c[GMT_WAVEFRONTS_PHASES] = (unsigned long long)w.ideal;
}

static __device__ void S_access(const gmt_launch *L, uint64_t pc, uint64_t a, uint32_t size,
                                uint32_t flags, bool shared)
{
    uint32_t group = __match_any_sync(__activemask(), pc);
    unsigned lane = S_lane();
    bool per_alloc = !shared && L->n_allocs;
    unsigned alloc = per_alloc ? S_alloc_of(L, a) : GMT_ALLOC_ALL;
    uint32_t same = per_alloc ? __match_any_sync(group, alloc) : group;
    /* every lane keeps every address: constant indices, registers */
    uint64_t addr[GM_WR_WARP];
#pragma unroll
    for (int i = 0; i < GM_WR_WARP; i++)
        addr[i] = __shfl_sync(group, (unsigned long long)a, i);
    bool leader = lane == (unsigned)__ffs(group) - 1;
    if (!gm_wr_size_ok(size)) {
        /* a width the rules do not know: not counted, but said */
        if (leader)
            atomicAdd(L->dropped, 1ull);
        return;
    }
    int kind = S_kind(shared, flags);
    unsigned long long c[GMT_NC];
    if (leader) {
        if (shared)
            S_shared_counts(L, size, addr, group, flags, c);
        else
            S_global_counts(L, size, addr, group, c);
        if (!(L->probe & GMT_PROBE_NO_TABLE))
            S_add(L, pc, GMT_ALLOC_ALL, kind, c);
    }
    /* per allocation: the lowest lane of each allocation's lanes counts them */
    if (per_alloc && lane == (unsigned)__ffs(same) - 1) {
        if (!leader || same != group)
            S_global_counts(L, size, addr, same, c);
        if (!(L->probe & GMT_PROBE_NO_TABLE))
            S_add(L, pc, alloc, kind, c);
    }
}

extern "C" __device__ __noinline__ SanitizerPatchResult
gmt_global_access(void *userdata, uint64_t pc, void *ptr, uint32_t size, uint32_t flags,
                  const void *data)
{
    (void)data;
    if (userdata)
        S_access((const gmt_launch *)userdata, pc, (uint64_t)(uintptr_t)ptr, size, flags, false);
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult
gmt_shared_access(void *userdata, uint64_t pc, void *ptr, uint32_t size, uint32_t flags,
                  const void *data)
{
    (void)data;
    if (userdata)
        S_access((const gmt_launch *)userdata, pc, (uint64_t)(uintptr_t)ptr, size, flags, true);
    return SANITIZER_PATCH_SUCCESS;
}

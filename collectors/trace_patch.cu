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
 * among __activemask()) send their addresses (and allocation indices) to the
 * lowest of them with __shfl_sync; that leader applies the hardware's rules
 * (core/warp_rules.h, the same functions as the CPU model) and adds the counts
 * to the (PC, launch, allocation) entries of the table with atomics.
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

/* The entry of (pc, tag): found, or claimed and keyed; NULL when the table is full. */
static __device__ gmt_entry *S_entry(const gmt_launch *L, unsigned long long pc, unsigned tag)
{
    /* pc >> 31 brings the shard's bits down where the product's high half sees them */
    unsigned long long h = (pc ^ pc >> 31 ^ (unsigned long long)tag << 20) * 0x9E3779B97F4A7C15ull;
    unsigned i = (unsigned)(h >> 32) & L->mask;
    for (unsigned probe = 0; probe <= L->mask; probe++, i = (i + 1) & L->mask) {
        gmt_entry *e = &L->table[i];
        unsigned st = *(volatile unsigned *)&e->state;
        if (st == GMT_FREE) {
            st = atomicCAS(&e->state, (unsigned)GMT_FREE, (unsigned)GMT_CLAIMED);
            if (st == GMT_FREE) {
                e->pc = pc;
                e->tag = tag;
                __threadfence();
                atomicExch(&e->state, (unsigned)GMT_READY);
                return e;
            }
        }
        /* another warp's leader is writing the key: wait for it */
        while (st == GMT_CLAIMED)
            st = *(volatile unsigned *)&e->state;
        __threadfence();
        if (*(volatile unsigned long long *)&e->pc == pc && *(volatile unsigned *)&e->tag == tag)
            return e;
    }
    return NULL;
}

static __device__ void S_add(const gmt_launch *L, unsigned long long pc, unsigned alloc,
                             const unsigned long long c[GMT_NC])
{
    unsigned long long shard = S_smid() & (L->shards - 1);
    gmt_entry *e = S_entry(L, pc | shard << GMT_SHARD_SHIFT, L->launch << 16 | alloc);
    if (!e) {
        atomicAdd(L->dropped, 1ull);
        return;
    }
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

static __device__ void S_global_counts(unsigned size, const uint64_t addr[32], uint32_t mask,
                                       uint32_t flags, unsigned long long c[GMT_NC])
{
    gm_wr_global g;
    gm_wr_global_count(size, addr, mask, &g);
    for (int k = 0; k < GMT_NC; k++)
        c[k] = 0;
    c[GMT_INST] = 1;
    c[S_kind(false, flags)] += 1;
    c[GMT_SECTORS] = (unsigned long long)g.sectors;
    c[GMT_SECTORS_IDEAL] = (unsigned long long)g.sectors_ideal;
    c[GMT_SECTORS_IDEAL_REQ] = (unsigned long long)g.sectors_ideal_requested;
    c[GMT_LANES] = (unsigned long long)g.lanes;
    c[GMT_BYTES] = (unsigned long long)g.lanes * size;
}

static __device__ void S_access(const gmt_launch *L, uint64_t pc, uint64_t a, uint32_t size,
                                uint32_t flags, bool shared)
{
    uint32_t group = __match_any_sync(__activemask(), pc);
    unsigned lane = S_lane();
    unsigned leader = (unsigned)__ffs(group) - 1;
    unsigned alloc = !shared && L->n_allocs ? S_alloc_of(L, a) : GMT_ALLOC_ALL;
    uint64_t addr[GM_WR_WARP];
    unsigned short al[GM_WR_WARP];
    for (int i = 0; i < GM_WR_WARP; i++) {
        if (!(group >> i & 1u))
            continue;
        uint64_t x = __shfl_sync(group, (unsigned long long)a, i);
        unsigned y = __shfl_sync(group, alloc, i);
        if (lane == leader) {
            addr[i] = x;
            al[i] = (unsigned short)y;
        }
    }
    if (lane != leader || !gm_wr_size_ok(size))
        return;
    unsigned long long c[GMT_NC];
    if (shared) {
        bool load = !(flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE);
        gm_wr_shared w;
        gm_wr_shared_count(load, size, addr, group, &w);
        for (int k = 0; k < GMT_NC; k++)
            c[k] = 0;
        c[GMT_INST] = 1;
        c[S_kind(true, flags)] += 1;
        c[GMT_WAVEFRONTS] = (unsigned long long)w.wavefronts;
        c[GMT_WAVEFRONTS_IDEAL] = (unsigned long long)w.ideal;
        c[GMT_WAVEFRONTS_IDEAL_BYTES] =
            (unsigned long long)gm_wr_shared_ideal_bytes(size, addr, group);
        c[GMT_LANES] = (unsigned long long)gm_wr_popcount(group);
        c[GMT_BYTES] = c[GMT_LANES] * size;
        S_add(L, pc, GMT_ALLOC_ALL, c);
        return;
    }
    S_global_counts(size, addr, group, flags, c);
    S_add(L, pc, GMT_ALLOC_ALL, c);
    if (!L->n_allocs)
        return;
    /* per allocation: the lanes of each allocation as a warp of their own */
    for (uint32_t left = group; left;) {
        unsigned which = al[__ffs(left) - 1];
        uint32_t sub = 0;
        for (int i = 0; i < GM_WR_WARP; i++)
            if ((left >> i & 1u) && al[i] == which)
                sub |= 1u << i;
        if (sub != group)
            S_global_counts(size, addr, sub, flags, c);
        S_add(L, pc, which, c);
        left &= ~sub;
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

#include "catalog.h"

#include <string.h>

#define L GM_BETTER_LOWER
#define H GM_BETTER_HIGHER
#define N GM_BETTER_NEITHER

/* `deterministic` means identical run to run for one kernel and input.  The
 * global sectors, requests and instructions, the shared instructions and the
 * ratios made from them are: in two full-suite runs of the same kernels on
 * the H100 (2026-11-22, tests/fixtures/h100-rerun-*.json) all 238 runs
 * profiled in both agreed exactly on each (the sectors/request ratios to the
 * last bit of rounding).  DRAM bytes, rates, hit rates, durations and
 * occupancy depend on what L2 holds and on timing. */
const gm_metric_info gm_catalog[] = {
    {GM_M_LD_SECTORS, "sector", "ld sectors", "32-byte sectors fetched by global loads (L1TEX tag stage).", L, true, true},
    {GM_M_LD_REQUESTS, "request", "ld requests", "Global load requests: one per warp-level load instruction, whatever the access width (sm_70 and later).", N, true, true},
    {GM_M_ST_SECTORS, "sector", "st sectors", "32-byte sectors written by global stores.", L, true, true},
    {GM_M_ST_REQUESTS, "request", "st requests", "Global store requests.", N, true, true},
    {GM_M_LD_SPR, "sector/request", "ld sectors/req", "Sectors per global load request; 4 is ideal for a warp of 4-byte loads.", L, true, true},
    {GM_M_ST_SPR, "sector/request", "st sectors/req", "Sectors per global store request; 4 is ideal for a warp of 4-byte stores.", L, true, true},
    {GM_M_LD_EFF, "%", "ld efficiency", "Bytes the threads asked for over bytes moved in the sectors fetched, for global loads.", H, true, true},
    {GM_M_ST_EFF, "%", "st efficiency", "Bytes the threads wrote over bytes in the sectors written, for global stores.", H, true, true},
    {GM_M_LD_INST, "inst", "ld inst", "Warp-level global load instructions executed.", N, true, true},
    {GM_M_ST_INST, "inst", "st inst", "Warp-level global store instructions executed.", N, true, true},
    /* Shared-memory bank conflicts and wavefronts are NOT identical run to run
     * on sm_90, although the addresses are: the L1TEX data stage also serves
     * global traffic, and how much of it collides with the shared accesses
     * depends on timing.  Measured on the H100 (driver 580.159.04,
     * 2026-11-22): two full-suite runs of the same kernels differed by up to
     * 0.011 per shared instruction (transpose/tiled n=2048: 1457 of 4.1 M
     * load conflicts; tests/fixtures/h100-rerun-*.json,
     * bench/results/diff-noise-2026-11-22.txt), and two ncu runs of one
     * kernel by up to 0.006 (bench/results/collector-compare.txt; the
     * tolerance of tests/gpu/collector_vs_ncu.cu).  The diff judges them per
     * shared instruction (reports/diff.h). */
    {GM_M_SH_LD_CONFL, "", "sh ld conflicts", "Shared-memory load bank conflicts (wavefronts beyond the ideal).", L, false, true},
    {GM_M_SH_ST_CONFL, "", "sh st conflicts", "Shared-memory store bank conflicts (wavefronts beyond the ideal).", L, false, true},
    {GM_M_SH_LD_WAVES, "", "sh ld wavefronts", "Shared-memory load wavefronts: passes the data stage needs.", L, false, true},
    {GM_M_SH_ST_WAVES, "", "sh st wavefronts", "Shared-memory store wavefronts.", L, false, true},
    {GM_M_SH_LD_INST, "inst", "sh ld inst", "Warp-level shared-memory load instructions executed.", N, true, true},
    {GM_M_SH_ST_INST, "inst", "sh st inst", "Warp-level shared-memory store instructions executed.", N, true, true},
    {GM_M_DRAM_RD, "byte", "DRAM read", "Bytes read from device memory (HBM).", L, false, true},
    {GM_M_DRAM_WR, "byte", "DRAM written", "Bytes written to device memory (HBM).", L, false, true},
    {GM_M_DRAM_PCT, "%", "DRAM % peak", "DRAM throughput as a percentage of its sustained peak over the kernel's duration.", H, false, true},
    {GM_M_DRAM_RATE, "byte/second", "DRAM B/s", "DRAM bytes read and written per second of kernel duration.", H, false, true},
    {GM_M_L1_HIT, "%", "L1 hit", "L1/TEX sector hit rate.", H, false, true},
    {GM_M_L2_HIT, "%", "L2 hit", "L2 sector hit rate.", H, false, true},
    {GM_M_DURATION, "ns", "duration", "Kernel duration measured by the profiler (one pass, clocks as found).", L, false, true},
    {GM_M_OCCUPANCY, "%", "occupancy", "Achieved occupancy: active warps over the SM's maximum, while active.", H, false, true},
};

const size_t gm_catalog_len = sizeof gm_catalog / sizeof gm_catalog[0];

const gm_metric_info *gm_catalog_find(const char *name)
{
    for (size_t i = 0; name && i < gm_catalog_len; i++)
        if (strcmp(gm_catalog[i].name, name) == 0)
            return &gm_catalog[i];
    return NULL;
}

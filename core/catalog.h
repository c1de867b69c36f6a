/* catalog.h — the metrics the report knows: exact Nsight Compute names, units,
 * which direction is better, and a short label.  One table (catalog.c) that the
 * CLI's default metric list, the renderer's labels and the diff's directions
 * all read, so they cannot disagree.
 */
#ifndef GM_CATALOG_H
#define GM_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GM_BETTER_LOWER = -1,
    GM_BETTER_NEITHER = 0,   /* informative only (e.g. request counts) */
    GM_BETTER_HIGHER = 1
} gm_direction;

typedef struct {
    const char *name;        /* exact ncu metric name */
    const char *unit;        /* as ncu prints it */
    const char *label;       /* short column label for tables and charts */
    const char *meaning;     /* one sentence for the report's glossary */
    gm_direction better;
    bool deterministic;      /* an exact count that should not vary run to run */
    bool is_default;         /* part of the report's default set */
} gm_metric_info;

extern const gm_metric_info gm_catalog[];
extern const size_t gm_catalog_len;

/* Entry for a name, or NULL when the catalog does not know it (the collector
 * may still measure it: the catalog is not the set of valid names). */
const gm_metric_info *gm_catalog_find(const char *name);

/* Names the report uses, as macros so a typo is a compile error. */
#define GM_M_LD_SECTORS     "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
#define GM_M_LD_REQUESTS    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
#define GM_M_ST_SECTORS     "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
#define GM_M_ST_REQUESTS    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
#define GM_M_LD_SPR         "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"
#define GM_M_ST_SPR         "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio"
#define GM_M_LD_EFF         "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"
#define GM_M_ST_EFF         "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"
#define GM_M_LD_INST        "smsp__sass_inst_executed_op_global_ld.sum"
#define GM_M_ST_INST        "smsp__sass_inst_executed_op_global_st.sum"
#define GM_M_SH_LD_CONFL    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
#define GM_M_SH_ST_CONFL    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
#define GM_M_SH_LD_WAVES    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
#define GM_M_SH_ST_WAVES    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
#define GM_M_SH_LD_INST     "smsp__inst_executed_op_shared_ld.sum"
#define GM_M_SH_ST_INST     "smsp__inst_executed_op_shared_st.sum"
#define GM_M_DRAM_RD        "dram__bytes_read.sum"
#define GM_M_DRAM_WR        "dram__bytes_write.sum"
#define GM_M_DRAM_PCT       "dram__throughput.avg.pct_of_peak_sustained_elapsed"
#define GM_M_DRAM_RATE      "dram__bytes.sum.per_second"
#define GM_M_L1_HIT         "l1tex__t_sector_hit_rate.pct"
#define GM_M_L2_HIT         "lts__t_sector_hit_rate.pct"
#define GM_M_DURATION       "gpu__time_duration.sum"
#define GM_M_OCCUPANCY      "sm__warps_active.avg.pct_of_peak_sustained_active"

#ifdef __cplusplus
}
#endif

#endif

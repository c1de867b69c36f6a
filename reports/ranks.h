/* ranks.h — what the report says about the process(es) behind a results
 * file: which host and rank collected it, whether it waited for other
 * processes sharing the GPU (devlock.h), and for a merged file
 * (merge.h) a table of the ranks side by side. */
#ifndef GM_RANKS_H
#define GM_RANKS_H

#include "../core/buf.h"
#include "../core/results.h"

/* Rows of the setup table ("| Process | ... |", "| GPU shared | ... |"):
 * nothing when the file records no process. */
void gm_md_process_rows(gm_buf *b, const gm_results *r);

/* "## Ranks" with one row per rank of a merged file (host, pid, device,
 * runs, GPU time of its runs, time waited for the GPU); nothing otherwise. */
void gm_md_ranks(gm_buf *b, const gm_results *r);

#endif

/* merge.h — the per-rank results of one job (`srun`/`mpirun ... --json
 * app-%r.json -- ./app`) gathered into one results file, so that one report
 * shows the ranks side by side.
 *
 * Each input's rank is the one its collection.process recorded (the launcher's
 * variable); a file without one takes its position among the inputs.  Two
 * inputs of one rank, two inputs with the same results (one file given
 * twice), and a recorded rank outside [0, GM_RANK_LIMIT) are refused.  The
 * output keeps the first rank's device
 * and collection header, lists every input's process in collection.ranks (in
 * rank order) and either
 *   - keeps every run, with a parameter "rank" added (a row per rank), or
 *   - (sum) pairs runs as diff does (experiment, variant, parameters) and adds
 *     them up: timing samples of all ranks together (a program's run has one
 *     sample per launch, so their sum is the kernel's GPU time over the job),
 *     counts (integer metrics) summed exactly (a sum past GM_INT_LIMIT, 2^53,
 *     is refused: a results file cannot hold it), other metrics averaged,
 *     and a note per run giving the ranks with the least and the most GPU
 *     time.
 */
#ifndef GM_MERGE_H
#define GM_MERGE_H

#include "../core/gm_error.h"
#include "../core/results.h"

#include <stdbool.h>
#include <stddef.h>

/* Merge in[0..n) (named names[i] in messages) into *out.  On success the
 * inputs are consumed: their runs and experiments move into out, and each
 * in[i] is left freed; on failure they are untouched and *out is empty.
 * GM_ERR_VALUE for two files of one rank or with the same results, a rank
 * out of range, a run that already has a "rank" parameter, or (sum) two runs
 * of one file that cannot be told apart or a count whose sum passes 2^53
 * (the message names the metric, the run and the value). */
gm_status gm_results_merge(gm_results *in, const char *const *names, size_t n, bool sum,
                           gm_results *out, gm_error *err);

#endif

/* findings_internal.h — what the rules (findings.c and the files of
 * findings_rules.h) and the explanations (explain.c) share: reading a run's
 * global and shared accesses against their ideal, the few readers and
 * escapers both use, and the sector and wavefront sizes.  Private to those
 * files; the interface of all of them is findings.h.
 *
 * The functions are in findings_util.c; their gm_find_ names are for these
 * files alone.
 */
#ifndef GM_FINDINGS_INTERNAL_H
#define GM_FINDINGS_INTERNAL_H

#include "findings.h"
#include "runs.h"
#include "../core/catalog.h"
#include "../core/escape.h"
#include "../core/fmt.h"
#include "../core/say.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define SECTOR_BYTES 32.0
#define WAVEFRONT_BYTES 128.0   /* one pass of the shared data stage: 32 banks x 4 B */

void gm_find_text(gm_buf *b, const char *s);
void gm_find_code(gm_buf *b, const char *s);

/* ---- reading a run ----------------------------------------------------------- */

double gm_find_m(const gm_run *run, const char *name);

double gm_find_pm(const gm_run *run, const char *name);

/* The median time, NaN when absent or not positive (a ratio would divide by it). */
double gm_find_time_of(const gm_run *run);

bool gm_find_streq(const char *a, const char *b);

/* Global loads or stores of a run: sectors per request against the ideal. */
typedef struct {
    bool known;          /* spr and ideal known and positive */
    double sectors, requests, spr;
    double eff;          /* efficiency %, measured (the model's when not measured) */
    double ideal;        /* sectors per request that would hold the bytes asked for */
    bool ideal_model;    /* ideal from the prediction */
    double excess_frac;  /* (spr - ideal) / spr, >= 0 */
    double excess;       /* sectors beyond requests * ideal; NaN when the sums are absent */
    double wasted;       /* bytes of fetched sectors no thread asked for; NaN when unknown */
} gm_find_glob;

gm_find_glob gm_find_global(const gm_run *run, bool store);

bool gm_find_uncoalesced(const gm_find_glob *g);

/* Shared loads or stores: wavefronts per instruction against the ideal. */
typedef enum {
    GM_FIND_IDEAL_MODEL,
    GM_FIND_IDEAL_COUNTER,
    GM_FIND_IDEAL_ASSUMED
} gm_find_ideal_src;

typedef struct {
    bool known;
    double waves, inst, wpi, ideal;
    gm_find_ideal_src src;
    double excess;   /* wavefronts beyond inst * ideal */
    double ways;     /* wpi / ideal */
    /* Requests made: where the ideal per instruction is under
     * GM_FIND_PREDICATED, the instructions whose threads were all predicated
     * off made none, and the ideal wavefronts (one per request for accesses
     * of 4 bytes or less) count the requests; else one per instruction. */
    bool per_request;
    double req;      /* requests made */
    double wpr;      /* wavefronts per request made; ideal 1 when per_request */
} gm_find_shr;

gm_find_shr gm_find_shared(const gm_run *run, bool store);

bool gm_find_conflicted(const gm_find_shr *s);

/* "an" before a number said with a vowel sound: eight..., eleven, eighteen,
 * and the same as the leading group of thousands (11,000; 800,000); the
 * integer part decides (8.5 is "eight point five"). */
const char *gm_find_article(double v);

/* "a 32-way bank conflict" / "on average a 2.4-way bank conflict" */
void gm_find_ways(gm_buf *b, double ways);

#endif

/* claims.h — the quantitative claims of the source documents, checked on the
 * GPU a results file was measured on.
 *
 * The claims are data compiled into the tool (claims.c: gm_claims[]), not a
 * file installed beside it: the report of a given binary always judges the
 * same claims against the experiments that binary's suite defines (the
 * selectors name its variants and parameters, and tests/test_claims.c checks
 * every selector against the suite table), nothing can go missing at install
 * time, and a claim is reviewed in the same diff as the kernel that tests it.
 * Each claim gives the source document by its title, the claim in our words,
 * the figure claimed, the hardware it was measured on, and which runs test it:
 * an experiment id, selectors for side a and side b (contrast.h syntax), a
 * filter on the parameters, and how the figure is computed from them.
 *
 * Verdicts (docs/claims.md):
 *   holds                          the measured figure is in the claimed range,
 *                                  widened by 25% (a ratio), 5% (a counter) or
 *                                  a factor 1.5 (a break-even size);
 *   holds in direction, not size   the same side wins (by 5% or more), but by
 *                                  a different amount;
 *   does not hold                  the other side wins, or neither (within 5%);
 *   not tested here                no run of this file tests it, or the suite
 *                                  has no kernel for it (the reason is given).
 * Every claim was made on other hardware (or hardware not stated), so sizes
 * are expected to differ: direction and order of magnitude are what carry over.
 */
#ifndef GM_CLAIMS_H
#define GM_CLAIMS_H

#include "../core/buf.h"
#include "../core/results.h"
#include "runs.h"

#include <stddef.h>

typedef enum {
    GM_CLAIM_RATIO,      /* median time a / time b over matched pairs fitting the filter */
    GM_CLAIM_COUNTER,    /* the counter (contrast.h kinds) of runs fitting a and the filter */
    GM_CLAIM_BREAKEVEN,  /* the n above which b (GPU) beats a (CPU): from pairs along param */
    GM_CLAIM_BEST_IN,    /* the fastest value of `param` for side a lies in [lo, hi] */
    GM_CLAIM_PEAK_PCT,   /* best effective bandwidth of side a, % of the theoretical peak */
    GM_CLAIM_NONE        /* not tested by this suite: `untested` says why */
} gm_claim_kind;

typedef struct {
    const char *id;          /* stable slug: "dp-diagonal-speedup" */
    const char *source;      /* the document's title */
    const char *claim;       /* in our words */
    const char *claimed;     /* the figure as the document gives it */
    const char *hardware;    /* where the document measured it */
    const char *experiment;  /* experiment id of the runs that test it; NULL when none */
    gm_claim_kind kind;
    const char *a, *b;       /* selectors (contrast.h) */
    const char *filter;      /* parameter filter on side a (contrast.h); NULL: all */
    const char *param;       /* BREAKEVEN, BEST_IN: the parameter along which */
    const char *counter;     /* COUNTER: the counter; RATIO: the one the why sentence prefers */
    double lo, hi;           /* the claimed range of the figure (hi = INFINITY: at least lo) */
    const char *untested;    /* NONE: why this suite does not test it */
    bool each_size;          /* RATIO: the claim speaks of every size, so it is judged on the
                                median over every matched pair; otherwise a claim on its
                                experiment's own contrast, without a filter, is judged at the
                                summary's pair (contrast.h), one number for both */
} gm_claim;

extern const gm_claim gm_claims[];
extern const size_t gm_claims_len;

typedef enum {
    GM_VERDICT_HOLDS,
    GM_VERDICT_DIRECTION,
    GM_VERDICT_NOT,
    GM_VERDICT_UNTESTED
} gm_verdict;

const char *gm_verdict_name(gm_verdict v);   /* "holds", "holds in direction, not size", ... */

typedef struct {
    gm_verdict verdict;
    double measured;         /* the figure compared with [lo, hi]; NaN when untested */
    gm_buf measured_md;      /* the "measured here" cell (Markdown) */
    gm_buf why_md;           /* one sentence (Markdown) */
} gm_claim_result;

/* Judge one claim against the sections of a results file.  Free with
 * gm_claim_result_free. */
void gm_claim_eval(const gm_claim *c, const gm_results *r, const gm_sections *ss,
                   gm_claim_result *out);
void gm_claim_result_free(gm_claim_result *r);

/* Does the file have an experiment some claim concerns? */
bool gm_claims_present(const gm_sections *ss);

/* The table "claim | source | claimed | measured here | verdict | why" for
 * every claim (experiment == NULL, with an introduction) or for those of one
 * experiment; nothing for an experiment with no claims.  Markdown, ending
 * with a blank line. */
void gm_claims_md(gm_buf *b, const gm_results *r, const gm_sections *ss, const char *experiment);
/* The Markdown forms' line for one experiment's section: per source
 * document, a link to its table in "Claims checked on this GPU" and the count
 * of each verdict; nothing for an experiment with no claims. */
void gm_claims_brief_md(gm_buf *b, const gm_results *r, const gm_sections *ss,
                        const char *experiment);

#endif

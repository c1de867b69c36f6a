/* diff_pair.c — pairing runs: the key each run pairs by (experiment, variant
 * and parameters; a program's kernel by kernel and NVTX range), the --pair
 * rules that rename base's runs, and the walk over both files in key order
 * that hands each pair to diff_judge.c, a program's kernels matched by launch
 * configuration.
 */
#include "diff_int.h"

#include "runs.h"

#include "../core/buf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================== */
/* Keys and --pair rules                                                    */
/* ======================================================================== */

struct gm_diff_key {
    const gm_run *run;
    size_t index;              /* position in its file, for messages */
    const gm_param **params;   /* sorted by name */
    const char *exp, *var;     /* the names it pairs by: the run's, or a --pair rule's */
    char *renamed;             /* owned storage of exp and var when a rule renamed them */
    bool prog;                 /* a program's kernel: var is its identity, params unused */
    char *ident;               /* prog: "\x01" NVTX range "\x1f" kernel (owned) */
    long long first;           /* prog: index of its first launch in the program; -1 */
};

static int S_param_name_cmp(const void *a, const void *b)
{
    const gm_param *x = *(const gm_param *const *)a, *y = *(const gm_param *const *)b;
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

int gm_diff_str_cmp(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

/* Absent < numbers < strings; numbers by value, so 1024 and 1024.0 pair. */
static int S_value_cmp(const gm_value *a, const gm_value *b)
{
    int ca = a->kind == GM_V_ABSENT ? 0 : a->kind == GM_V_STR ? 2 : 1;
    int cb = b->kind == GM_V_ABSENT ? 0 : b->kind == GM_V_STR ? 2 : 1;
    if (ca != cb)
        return ca - cb;
    if (ca == 1) {
        double x = gm_value_num(a), y = gm_value_num(b);
        return (x > y) - (x < y);
    }
    if (ca == 2)
        return gm_diff_str_cmp(a->s, b->s);
    return 0;
}

/* The key two runs pair by: experiment, variant and parameters; for a
 * program's kernels, experiment (the program), identity (kernel and NVTX
 * range) and parameters (none, or those a merge adds: the rank), their
 * launch configurations being what may change. */
static int S_key_cmp(const gm_diff_key *a, const gm_diff_key *b)
{
    if (a->prog != b->prog)
        return (int)a->prog - (int)b->prog;
    int c = gm_diff_str_cmp(a->exp, b->exp);
    if (c)
        return c;
    if ((c = gm_diff_str_cmp(a->var, b->var)))
        return c;
    size_t n = a->run->n_params < b->run->n_params ? a->run->n_params : b->run->n_params;
    for (size_t i = 0; i < n; i++) {
        if ((c = gm_diff_str_cmp(a->params[i]->name, b->params[i]->name)))
            return c;
        if ((c = S_value_cmp(&a->params[i]->value, &b->params[i]->value)))
            return c;
    }
    return (a->run->n_params > b->run->n_params) - (a->run->n_params < b->run->n_params);
}

/* Launch configurations in a fixed order: none first, then grid, block,
 * shared memory. */
static int S_launch_cmp(const gm_run *a, const gm_run *b)
{
    if (a->has_launch != b->has_launch)
        return (int)a->has_launch - (int)b->has_launch;
    if (!a->has_launch)
        return 0;
    for (int i = 0; i < 3; i++)
        if (a->launch.grid[i] != b->launch.grid[i])
            return a->launch.grid[i] < b->launch.grid[i] ? -1 : 1;
    for (int i = 0; i < 3; i++)
        if (a->launch.block[i] != b->launch.block[i])
            return a->launch.block[i] < b->launch.block[i] ? -1 : 1;
    return (a->launch.shared_bytes > b->launch.shared_bytes) -
           (a->launch.shared_bytes < b->launch.shared_bytes);
}

static int S_key_sort(const void *a, const void *b)
{
    const gm_diff_key *x = a, *y = b;
    int c = S_key_cmp(x, y);
    if (c == 0 && x->prog && (c = S_launch_cmp(x->run, y->run)) == 0)
        c = (x->first > y->first) - (x->first < y->first);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* A kernel of a program (gpumem-report -- PROGRAM): no reference to check
 * against, or any named kernel of a program's file (size set "app", as the
 * injection library writes it), so a launch that failed pairs as its
 * kernel. */
static bool S_is_program(const gm_results *r, const gm_run *run)
{
    return gm_run_is_program(run) ||
           (run->kernel && r->collection.size_set && strcmp(r->collection.size_set, "app") == 0);
}

/* The NVTX range the launches ran in (gm_run_nvtx_range); "" outside any range. */
static const char *S_range(const gm_run *run)
{
    const char *r = gm_run_nvtx_range(run);
    return r ? r : "";
}

/* The index of the run's first launch in the program, from its notes
 * ("launch 7 of the program", "2 launches (launches 4, 5 of the program)");
 * -1 when none says. */
static long long S_first_launch(const gm_run *run)
{
    for (size_t i = 0; i < run->n_notes; i++) {
        const char *n = run->notes[i];
        long long v;
        if (!n)
            continue;
        const char *p = strstr(n, "(launches ");
        if (p && sscanf(p + 10, "%lld", &v) == 1)
            return v;
        if (sscanf(n, "launch %lld of the program", &v) == 1)
            return v;
    }
    return -1;
}

/* A program kernel's variant without what the injection library adds to
 * tell launches apart (" 64x64x1/32x8x1", " #5"), into out. */
static void S_stem(const char *var, char *out, size_t n)
{
    snprintf(out, n, "%s", var ? var : "");
    char *sp = strrchr(out, ' ');
    if (sp && sp[1] == '#' && sp[2] && strspn(sp + 2, "0123456789") == strlen(sp + 2))
        *sp = '\0';
    sp = strrchr(out, ' ');
    unsigned g[3], k[3];
    int used = 0;
    if (sp && sscanf(sp + 1, "%ux%ux%u/%ux%ux%u%n", &g[0], &g[1], &g[2], &k[0], &k[1], &k[2],
                     &used) == 6 && sp[1 + used] == '\0')
        *sp = '\0';
}

gm_status gm_diff_pair_parse(const char *spec, gm_diff_pair *p, gm_error *err)
{
    p->from = p->to = NULL;
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1])
        return gm_fail(err, GM_ERR_VALUE,
                       "--pair: '%s' is not OLD=NEW (names of base and head runs: "
                       "EXPERIMENT/VARIANT or VARIANT, one '*' allowed)", spec);
    size_t n = (size_t)(eq - spec);
    char *from = gm_xmalloc(n + 1);
    memcpy(from, spec, n);
    from[n] = '\0';
    const char *to = eq + 1;
    const char *why = NULL;
    const char *sf = strchr(from, '*'), *st = strchr(to, '*');
    if (sf && strchr(sf + 1, '*'))
        why = "OLD has more than one '*'";
    else if (st && strchr(st + 1, '*'))
        why = "NEW has more than one '*'";
    else if (st && !sf)
        why = "NEW has a '*' but OLD has none to match it";
    else if (strchr(to, '=') )
        why = "more than one '='";
    else if ((strchr(from, '/') != NULL) != (strchr(to, '/') != NULL))
        why = "give EXPERIMENT/VARIANT on both sides or VARIANT on both";
    if (why) {
        free(from);
        return gm_fail(err, GM_ERR_VALUE, "--pair: '%s': %s", spec, why);
    }
    p->from = from;
    p->to = gm_xstrdup(to);
    return GM_OK;
}

/* A --pair pattern against a name: at most one '*', which matches any run of
 * characters (captured in *cap, *cap_len). */
static bool S_glob(const char *pat, const char *s, const char **cap, size_t *cap_len)
{
    const char *star = strchr(pat, '*');
    if (!star) {
        *cap = s + strlen(s);
        *cap_len = 0;
        return strcmp(pat, s) == 0;
    }
    size_t pre = (size_t)(star - pat), suf = strlen(star + 1), n = strlen(s);
    if (n < pre + suf || strncmp(pat, s, pre) != 0 || strcmp(star + 1, s + n - suf) != 0)
        return false;
    *cap = s + pre;
    *cap_len = n - pre - suf;
    return true;
}

/* The first rule whose FROM matches the run renames it: "EXP/VARIANT" rules
 * match the pair, bare "VARIANT" rules the variant in any experiment; a
 * program's kernel is matched by its variant, then by its stem (the variant
 * without a launch configuration), so one rule covers every configuration.
 * Returns the rule's index or -1. */
static long S_rename(gm_diff_key *k, const gm_diff_pair *pairs, size_t n_pairs)
{
    const char *exp = k->run->experiment ? k->run->experiment : "";
    char stem[512];
    S_stem(k->run->variant, stem, sizeof stem);
    const char *vars[2] = {k->run->variant ? k->run->variant : "", stem};
    for (size_t i = 0; i < n_pairs; i++) {
        const gm_diff_pair *p = &pairs[i];
        bool full = strchr(p->from, '/') != NULL;
        for (int v = 0; v < (k->prog ? 2 : 1); v++) {
            gm_buf name = GM_BUF_INIT;
            if (full)
                gm_buf_printf(&name, "%s/%s", exp, vars[v]);
            else
                gm_buf_puts(&name, vars[v]);
            const char *cap;
            size_t cap_len;
            bool hit = S_glob(p->from, name.data ? name.data : "", &cap, &cap_len);
            if (!hit) {
                gm_buf_free(&name);
                continue;
            }
            gm_buf to = GM_BUF_INIT;
            if (!full)
                gm_buf_printf(&to, "%s/", exp);
            for (const char *t = p->to; *t; t++) {
                if (*t == '*')
                    gm_buf_printf(&to, "%.*s", (int)cap_len, cap);
                else
                    gm_buf_putc(&to, *t);
            }
            gm_buf_free(&name);
            k->renamed = gm_buf_detach(&to);
            char *slash = strchr(k->renamed, '/');
            if (slash) {
                *slash = '\0';
                k->exp = k->renamed;
                k->var = slash + 1;
            } else {   /* FROM had a '/', TO none: a rule not from gm_diff_pair_parse */
                k->var = k->renamed;
            }
            return (long)i;
        }
    }
    return -1;
}

/* A renamed program kernel pairs with the head kernel of that experiment
 * whose variant, or stem, is the new name: it takes that kernel's identity
 * (the first such in head's order). */
static void S_rename_program(gm_diff_key *k, const gm_diff_key *head, size_t n_head)
{
    for (size_t j = 0; j < n_head; j++) {
        const gm_diff_key *h = &head[j];
        if (!h->prog || gm_diff_str_cmp(h->run->experiment, k->exp) != 0)
            continue;
        char stem[512];
        S_stem(h->run->variant, stem, sizeof stem);
        if (gm_diff_str_cmp(h->run->variant, k->var) == 0 || strcmp(stem, k->var) == 0) {
            k->var = h->ident;
            return;
        }
    }
}

/* The runs of r sorted by pairing key; base runs renamed by the --pair rules
 * first (hits[i] counts the runs rule i renamed; pairs may be NULL).  With
 * programs, a program's kernels are keyed by kernel and NVTX range (a
 * renamed one by the head kernel it names: head, n_head); without, every run
 * by experiment, variant and parameters (gm_diff_run_key_cmp). */
static gm_diff_key *S_keys(const gm_results *r, const gm_diff_pair *pairs, size_t n_pairs,
                           size_t *hits, bool programs, const gm_diff_key *head,
                           size_t n_head)
{
    gm_diff_key *k = gm_xcalloc(r->n_runs ? r->n_runs : 1, sizeof *k);
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_run *run = &r->runs[i];
        k[i].run = run;
        k[i].index = i;
        k[i].exp = run->experiment;
        k[i].var = run->variant;
        k[i].first = -1;
        if (programs && S_is_program(r, run)) {
            k[i].prog = true;
            gm_buf id = GM_BUF_INIT;
            gm_buf_printf(&id, "\x01%s\x1f%s", S_range(run), run->kernel ? run->kernel : "");
            k[i].ident = gm_buf_detach(&id);
            k[i].var = k[i].ident;
            k[i].first = S_first_launch(run);
        }
        long rule = S_rename(&k[i], pairs, n_pairs);
        if (rule >= 0 && hits)
            hits[rule]++;
        if (rule >= 0 && k[i].prog)
            S_rename_program(&k[i], head, n_head);
        k[i].params = gm_xcalloc(run->n_params ? run->n_params : 1, sizeof *k[i].params);
        for (size_t p = 0; p < run->n_params; p++)
            k[i].params[p] = &run->params[p];
        qsort(k[i].params, run->n_params, sizeof *k[i].params, S_param_name_cmp);
    }
    qsort(k, r->n_runs, sizeof *k, S_key_sort);
    return k;
}

void gm_diff_keys_free(gm_diff_key *k, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(k[i].params);
        free(k[i].renamed);
        free(k[i].ident);
    }
    free(k);
}

static void S_value_text(gm_buf *b, const gm_value *v)
{
    switch (v->kind) {
    case GM_V_ABSENT: gm_buf_puts(b, "null"); break;
    case GM_V_INT: gm_buf_printf(b, "%lld", v->i); break;
    case GM_V_REAL: gm_buf_printf(b, "%.15g", v->r); break;
    case GM_V_STR: gm_buf_puts(b, v->s ? v->s : ""); break;
    }
}

void gm_diff_params_text(gm_buf *b, const gm_run *run)
{
    const gm_param **p = gm_xcalloc(run->n_params ? run->n_params : 1, sizeof *p);
    for (size_t i = 0; i < run->n_params; i++)
        p[i] = &run->params[i];
    qsort(p, run->n_params, sizeof *p, S_param_name_cmp);
    for (size_t i = 0; i < run->n_params; i++) {
        if (i)
            gm_buf_puts(b, ", ");
        gm_buf_puts(b, p[i]->name ? p[i]->name : "");
        gm_buf_putc(b, '=');
        S_value_text(b, &p[i]->value);
    }
    free(p);
}

/* Two runs of one file with the same key cannot be paired; a program's
 * kernels may share one (several launch configurations: S_pair_programs). */
static gm_status S_duplicates(const gm_diff_key *k, size_t n, const char *name, gm_error *err)
{
    for (size_t i = 1; i < n; i++) {
        if (!k[i].prog && S_key_cmp(&k[i - 1], &k[i]) == 0) {
            gm_buf pb = GM_BUF_INIT;
            gm_diff_params_text(&pb, k[i].run);
            gm_status s = gm_fail(err, GM_ERR_VALUE,
                                  "%s: runs[%zu] and runs[%zu] have the same experiment '%s', "
                                  "variant '%s' and parameters (%s): cannot pair them",
                                  name, k[i - 1].index, k[i].index,
                                  k[i].run->experiment ? k[i].run->experiment : "",
                                  k[i].run->variant ? k[i].run->variant : "",
                                  pb.data ? pb.data : "");
            gm_buf_free(&pb);
            return s;
        }
    }
    return GM_OK;
}

int gm_diff_run_key_cmp(const gm_run *a, const gm_run *b)
{
    gm_results ra = {0}, rb = {0};
    ra.runs = (gm_run *)a, ra.n_runs = 1;
    rb.runs = (gm_run *)b, rb.n_runs = 1;
    gm_diff_key *ka = S_keys(&ra, NULL, 0, NULL, false, NULL, 0);
    gm_diff_key *kb = S_keys(&rb, NULL, 0, NULL, false, NULL, 0);
    int c = S_key_cmp(&ka[0], &kb[0]);
    gm_diff_keys_free(ka, 1);
    gm_diff_keys_free(kb, 1);
    return c;
}

gm_status gm_diff_check_file(const gm_results *r, const char *name, gm_error *err)
{
    gm_diff_key *k = S_keys(r, NULL, 0, NULL, false, NULL, 0);
    gm_status st = S_duplicates(k, r->n_runs, name ? name : "base", err);
    gm_diff_keys_free(k, r->n_runs);
    return st;
}

/* ======================================================================== */
/* The walk over both files                                                 */
/* ======================================================================== */

/* The keys of both files' runs, base's renamed by the --pair rules; *kb and
 * *kh are set (the caller frees them) only when each file's runs can be told
 * apart and every rule renamed a run. */
gm_status gm_diff_keys_checked(const gm_results *base, const gm_results *head,
                               const gm_diff_options *opts, const char *bname,
                               const char *hname, gm_diff_key **kb_out, gm_diff_key **kh_out,
                               gm_error *err)
{
    /* each file alone first: two runs with one name cannot be told apart */
    gm_status st = gm_diff_check_file(base, bname, err);
    if (st == GM_OK)
        st = gm_diff_check_file(head, hname, err);
    if (st != GM_OK)
        return st;
    size_t *hits = gm_xcalloc(opts->n_pairs ? opts->n_pairs : 1, sizeof *hits);
    gm_diff_key *kh = S_keys(head, NULL, 0, NULL, true, NULL, 0);
    gm_diff_key *kb = S_keys(base, opts->pairs, opts->n_pairs, hits, true, kh, head->n_runs);
    for (size_t i = 0; i < opts->n_pairs && st == GM_OK; i++)
        if (hits[i] == 0)
            st = gm_fail(err, GM_ERR_VALUE,
                         "--pair %s=%s: no run of %s is named '%s' (experiment/variant, or "
                         "variant; '*' matches any text)", opts->pairs[i].from,
                         opts->pairs[i].to, bname, opts->pairs[i].from);
    free(hits);
    if (st == GM_OK)
        st = S_duplicates(kb, base->n_runs, bname, err);
    if (st == GM_OK)
        st = S_duplicates(kh, head->n_runs, hname, err);
    if (st != GM_OK) {
        gm_diff_keys_free(kb, base->n_runs);
        gm_diff_keys_free(kh, head->n_runs);
        return st;
    }
    *kb_out = kb;
    *kh_out = kh;
    return GM_OK;
}

/* Pair two runs (or, for a new or removed one, write its row), marking the
 * rows of a program's kernels. */
static void S_pair(gm_diff_ctx *c, const gm_diff_key *b, const gm_diff_key *h)
{
    size_t from = c->d->n_rows;
    gm_diff_judge_pair(c, b->run, h->run);
    for (size_t k = from; k < c->d->n_rows; k++)
        c->d->rows[k].program = b->prog;
    c->d->n_runs_paired++;
}

static void S_single(gm_diff_ctx *c, const gm_diff_key *k, bool is_head)
{
    size_t from = c->d->n_rows;
    gm_diff_judge_single(c, k->run, is_head);
    for (size_t r = from; r < c->d->n_rows; r++)
        c->d->rows[r].program = k->prog;
    if (is_head)
        c->d->n_runs_new++;
    else
        c->d->n_runs_removed++;
}

/* A program's kernel pairs by kernel and NVTX range, whatever its launch
 * configuration: the base and head runs of one kernel and range (b, nb; h,
 * nh, sorted by configuration, then first launch) pair where their
 * configurations agree, then the rest in order (a changed grid or block);
 * what is left is new or removed. */
static void S_pair_programs(gm_diff_ctx *c, const gm_diff_key *b, size_t nb,
                            const gm_diff_key *h, size_t nh)
{
    bool *bu = gm_xcalloc(nb, sizeof *bu), *hu = gm_xcalloc(nh, sizeof *hu);
    for (size_t i = 0; i < nb; i++)
        for (size_t j = 0; j < nh && !bu[i]; j++)
            if (!hu[j] && S_launch_cmp(b[i].run, h[j].run) == 0) {
                S_pair(c, &b[i], &h[j]);
                bu[i] = hu[j] = true;
            }
    size_t j = 0;
    for (size_t i = 0; i < nb; i++) {
        if (bu[i])
            continue;
        while (j < nh && hu[j])
            j++;
        if (j == nh)
            break;
        S_pair(c, &b[i], &h[j]);
        bu[i] = hu[j] = true;
    }
    for (size_t i = 0; i < nb; i++)
        if (!bu[i])
            S_single(c, &b[i], false);
    for (size_t k = 0; k < nh; k++)
        if (!hu[k])
            S_single(c, &h[k], true);
    free(bu);
    free(hu);
}

/* Both files' runs in key order (kb, nb; kh, nh), side by side: a key on one
 * side only is a new or removed run; equal keys pair, a program's kernels by
 * S_pair_programs. */
void gm_diff_pair_keys(gm_diff_ctx *c, const gm_diff_key *kb, size_t nb, const gm_diff_key *kh,
                       size_t nh)
{
    size_t i = 0, j = 0;
    while (i < nb || j < nh) {
        int cmp = i == nb ? 1 : j == nh ? -1 : S_key_cmp(&kb[i], &kh[j]);
        if (cmp < 0) {
            S_single(c, &kb[i++], false);
        } else if (cmp > 0) {
            S_single(c, &kh[j++], true);
        } else if (!kb[i].prog) {
            S_pair(c, &kb[i++], &kh[j++]);
        } else {
            size_t i2 = i, j2 = j;
            while (i2 < nb && S_key_cmp(&kb[i], &kb[i2]) == 0)
                i2++;
            while (j2 < nh && S_key_cmp(&kh[j], &kh[j2]) == 0)
                j2++;
            S_pair_programs(c, kb + i, i2 - i, kh + j, j2 - j);
            i = i2;
            j = j2;
        }
    }
}

/* fuzz_history.c — libFuzzer target: the history path (reports/history*.c)
 * on any database file.  The input is the file's image: it is written to a
 * temporary file, opened (the defensive settings, the schema check, the
 * migrations), reported as Markdown, exported as CSV, a head gated against
 * it, a results file added to it and the report made again.  Whatever the
 * bytes, each step succeeds or fails with a message; nothing may crash,
 * leak or hang.  Seeds: tests/fuzz/corpus/history (made by
 * tests/fuzz/make-history-corpus.sh).  Built and run by `make fuzz`. */
#include "../../core/results.h"
#include "../../reports/history.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char S_dir[256];
static char S_db[300];
static gm_results S_head;
static char *S_head_json;

/* A small results file of the settings of the seeds' GPU fixtures
 * (tests/fixtures/history-node7-gpu*.json), so that the gate pairs runs. */
static void S_make_head(void)
{
    gm_results *r = &S_head;
    gm_results_init(r);
    r->origin = strdup("fuzz_history head");
    r->commit = strdup("feedfacefeedfacefeedfacefeedfacefeedface");
    r->dirty = 0;
    r->taken_at = strdup("2026-01-01T00:00:00Z");
    r->device.name = strdup("NVIDIA H100 80GB HBM3");
    r->device.driver_version = strdup("580.65.06");
    r->device.theoretical_bandwidth_gbs = gm_vabsent();
    r->device.copy_bandwidth_gbs = gm_vabsent();
    r->device.copy_bandwidth_bytes = gm_vabsent();
    r->device.attainable_bandwidth_gbs = gm_vabsent();
    gm_collection *c = &r->collection;
    c->n_metrics = 2;
    c->metrics = calloc(2, sizeof *c->metrics);
    c->metrics[0] = strdup("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    c->metrics[1] = strdup("l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio");
    c->passes = -1;
    c->cache_flush = true;
    c->clock_control = strdup("none");
    c->size_set = strdup("quick");
    c->timing_warmup = 3;
    c->timing_repetitions = 4;
    gm_experiment *x = gm_results_add_experiment(r);
    x->id = strdup("coalescing");
    for (int stride = 1; stride <= 2; stride++) {
        gm_run *u = gm_results_add_run(r);
        u->experiment = strdup("coalescing");
        u->variant = strdup("stride");
        gm_run_set_param(u, "n", gm_vint(16777216));
        gm_run_set_param(u, "stride", gm_vint(stride));
        double ms[4] = {0.06 * stride, 0.061 * stride, 0.059 * stride, 0.06 * stride};
        u->timing.present = true;
        u->timing.warmup = 3;
        gm_timing_set_samples(&u->timing, ms, 4);
        gm_run_set_metric(u, c->metrics[0], gm_vint(2097152 * stride), "sector");
        gm_run_set_metric(u, c->metrics[1], gm_vreal(4.0 * stride), "sector/request");
        u->check.status = GM_CHECK_PASSED;
    }
    S_head_json = gm_results_to_json(r);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(S_dir, sizeof S_dir, "%s/gm-fuzz-history-XXXXXX", base);
    if (!mkdtemp(S_dir))
        abort();
    snprintf(S_db, sizeof S_db, "%s/h.sqlite", S_dir);
    S_make_head();
    return 0;
}

static void S_clean(void)
{
    static const char *const sfx[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof sfx / sizeof *sfx; i++) {
        char p[320];
        snprintf(p, sizeof p, "%s%s", S_db, sfx[i]);
        unlink(p);
    }
}

static void S_report(gm_history *h)
{
    gm_error e = {0};
    char *text = NULL;
    gm_history_query q = {0};
    q.db_name = "fuzz.sqlite";
    if (gm_history_report_md(h, &q, &text, &e) == GM_OK)
        free(text);
    q.all = true;
    q.md_commits = (size_t)-1;
    q.last = 3;
    if (gm_history_report_md(h, &q, &text, &e) == GM_OK)
        free(text);
    if (gm_history_csv(h, &q, &text, &e) == GM_OK)
        free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    S_clean();
    FILE *f = fopen(S_db, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    gm_history *h = NULL;
    gm_error e = {0};
    if (gm_history_open(S_db, false, &h, &e) == GM_OK) {
        if (gm_history_schema_version(h) != GM_HISTORY_SCHEMA)
            abort();   /* opened means migrated */
        long long n[4];
        gm_history_counts(h, &n[0], &n[1], &n[2], &n[3], &e);
        S_report(h);
        gm_diff_options o = {0};
        gm_diff_render ro = {0};
        ro.only_changed = true;
        char *md = NULL, *json = NULL;
        bool fail = false;
        if (gm_history_gate(h, &S_head, "head.json", &o, &ro, false, &md, &json, &fail, &e) ==
            GM_OK) {
            free(md);
            free(json);
        }
        bool added = false;
        if (gm_history_add(h, &S_head, S_head_json, 1767225600, "head.json", &added, &e) == GM_OK)
            S_report(h);
        gm_history_close(h);
    }
    S_clean();
    return 0;
}

/* inject_vs_ncu.c — `gpumem-report -- PROGRAM` on the example lab
 * (examples/app/lab.cu), against the program alone and against Nsight Compute.
 *
 *   build/tests/gpu/inject_vs_ncu      (make test-gpu sets GM_BIN)
 *
 * Checks, in order:
 *   1. the program's stdout and exit status are the same with and without the
 *      tool (the lab checks its own results on the CPU, and one kernel is not
 *      idempotent: a replay that did not restore memory would change its
 *      output); `--exit 3` comes back as the tool's exit status;
 *   2. the tool saw every launch (10), named them (NVTX ranges, demangled
 *      kernels) and measured the known values: 4 sectors per request for the
 *      coalesced scale, 32 for the strided one; about 32 shared wavefronts per
 *      load instruction in the unpadded transpose, about 1 padded;
 *   3. every counter of every launch against `ncu --csv --print-units base
 *      --cache-control all --clock-control none --metrics <the same list>` on
 *      the same program, run twice, with the collector's test's tolerances
 *      (tests/gpu/collector_vs_ncu.cu): counts within 1 %, ratios and
 *      percentages within 1 % or 0.5 points, DRAM bytes read within 2 %; bank
 *      conflicts and wavefronts within 0.1 per shared instruction, L2 hit rate
 *      within 2 points, DRAM written against ncu collecting DRAM bytes alone
 *      (its multi-pass replay adds its own restore's write-backs) within 2 % or
 *      2 MiB; a value between ncu's two runs agrees; durations, rates and % of
 *      peak warn beyond 15 % and fail beyond 50 % (clocks as found);
 *   4. wall time: the program alone, under the tool, under ncu (same metrics);
 *   5. the lab's --extras: a launch through cudaLaunchKernelEx and one on the
 *      per-thread default stream are profiled, a graph's kernel node once for
 *      each of the graph's two launches; launches after cudaDeviceReset are
 *      not, and the report says so; output and exit status are still the
 *      program's.
 *
 * Environment: GM_BIN (gpumem-report), GM_LAB (the lab), NCU (ncu),
 * GMI_TEST_OUT (a directory to keep every output in; default a temporary one).
 * Exit 0 all passed, 1 a check failed, 2 cannot run here.
 */
#include "../../core/catalog.h"
#include "../../core/results.h"
#include "ncu_tolerance.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N_LAUNCHES 10
#define MAXM 64

static int g_pass, g_fail, g_warn;

static void S_check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void S_check(bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s ", ok ? "ok  " : "FAIL");
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    ok ? g_pass++ : g_fail++;
}

/* printf into a new string (the test keeps them: a few dozen short strings). */
static char *S_f(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *S_f(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    if (!s)
        abort();
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

static double S_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Run a shell command; its exit status (128 + signal when killed), wall seconds in *s. */
static int S_sh(const char *cmd, double *s)
{
    printf("running: %s\n", cmd);
    fflush(stdout);
    double t0 = S_now();
    int ws = system(cmd);
    if (s)
        *s = S_now() - t0;
    if (ws == -1)
        return -1;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static char *S_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    size_t k;
    while (b && (k = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 == cap)
            b = realloc(b, cap *= 2);
    }
    fclose(f);
    if (b)
        b[n] = '\0';
    return b;
}

static bool S_same_file(const char *a, const char *b)
{
    char *x = S_read(a), *y = S_read(b);
    bool same = x && y && strcmp(x, y) == 0;
    free(x);
    free(y);
    return same;
}

/* ---- ncu's CSV --------------------------------------------------------------------- */

typedef struct {
    char name[256];
    double v[MAXM];
} S_kernel;

/* Split one CSV line into at most max fields (quotes, doubled quotes). */
static size_t S_fields(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *w = line, *p = line;
    bool q = false;
    f[n++] = w;
    for (; *p && *p != '\n' && *p != '\r'; p++) {
        if (q) {
            if (*p == '"' && p[1] == '"')
                *w++ = '"', p++;
            else if (*p == '"')
                q = false;
            else
                *w++ = *p;
        } else if (*p == '"') {
            q = true;
        } else if (*p == ',') {
            *w++ = '\0';
            if (n < max)
                f[n++] = w;
        } else {
            *w++ = *p;
        }
    }
    *w = '\0';
    return n;
}

static double S_number(const char *s)
{
    char t[128];
    size_t k = 0;
    for (; *s && k + 1 < sizeof t; s++)
        if (*s != ',' && *s != ' ')
            t[k++] = *s;
    t[k] = '\0';
    char *end = NULL;
    double d = strtod(t, &end);
    return k && end && *end == '\0' ? d : NAN;
}

/* ncu on the lab with these metrics; kernels in launch order. */
static int S_ncu(const char *ncu, const char *lab, const char *dir, const char *tag,
                 const char *const *m, size_t nm, S_kernel *k, size_t *nk, double *secs)
{
    char list[8192] = "", csv[4096], cmd[16384];
    for (size_t i = 0; i < nm; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? "," : "", m[i]);
    snprintf(csv, sizeof csv, "%s/ncu-%s.csv", dir, tag);
    snprintf(cmd, sizeof cmd, "'%s' --csv --print-units base --cache-control all "
             "--clock-control none --metrics %s '%s' > '%s' 2>&1", ncu, list, lab, csv);
    int rc = S_sh(cmd, secs);
    FILE *f = fopen(csv, "r");
    if (rc != 0 || !f) {
        fprintf(stderr, "ncu failed (status %d); see %s\n", rc, csv);
        if (f)
            fclose(f);
        return 1;
    }
    char line[65536], last_id[64] = "";
    int c_id = -1, c_name = -1, c_metric = -1, c_value = -1;
    *nk = 0;
    while (fgets(line, sizeof line, f)) {
        char *fl[64];
        if (strncmp(line, "\"ID\"", 4) == 0) {
            size_t n = S_fields(line, fl, 64);
            for (size_t i = 0; i < n; i++) {
                if (strcmp(fl[i], "ID") == 0) c_id = (int)i;
                else if (strcmp(fl[i], "Kernel Name") == 0) c_name = (int)i;
                else if (strcmp(fl[i], "Metric Name") == 0) c_metric = (int)i;
                else if (strcmp(fl[i], "Metric Value") == 0) c_value = (int)i;
            }
            continue;
        }
        if (c_id < 0 || line[0] != '"')
            continue;
        size_t n = S_fields(line, fl, 64);
        if ((int)n <= c_value || (int)n <= c_metric || (int)n <= c_name)
            continue;
        if (strcmp(fl[c_id], last_id) != 0) {
            if (*nk == N_LAUNCHES + 8)
                break;
            snprintf(last_id, sizeof last_id, "%s", fl[c_id]);
            S_kernel *x = &k[(*nk)++];
            snprintf(x->name, sizeof x->name, "%s", fl[c_name]);
            for (size_t i = 0; i < MAXM; i++)
                x->v[i] = NAN;
        }
        for (size_t i = 0; i < nm; i++)
            if (strcmp(fl[c_metric], m[i]) == 0)
                k[*nk - 1].v[i] = S_number(fl[c_value]);
    }
    fclose(f);
    return c_id < 0 ? 1 : 0;
}

/* ---- the test ---------------------------------------------------------------------- */

static const char *const S_kernels[N_LAUNCHES] = {
    "scale_coalesced", "scale_coalesced", "scale_strided", "scale_strided",
    "transpose_unpadded", "transpose_unpadded", "transpose_padded", "transpose_padded",
    "accumulate", "accumulate"};
static const char *const S_ranges[N_LAUNCHES] = {
    "coalesced", "coalesced", "uncoalesced", "uncoalesced", "shared-unpadded",
    "shared-unpadded", "shared-padded", "shared-padded", "accumulate", "accumulate"};

static bool S_has_note(const gm_run *run, const char *text)
{
    for (size_t i = 0; i < run->n_notes; i++)
        if (strstr(run->notes[i], text))
            return true;
    return false;
}

int main(void)
{
    char self[4096], dir[4096];
    char *bin, *lab, *cmd, *a, *b, *path;
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return 2;
    self[len] = '\0';
    *strrchr(self, '/') = '\0';   /* build/tests/gpu */
    const char *e = getenv("GM_BIN");
    bin = e && *e ? S_f("%s", e) : S_f("%s/../../gpumem-report", self);
    e = getenv("GM_LAB");
    lab = e && *e ? S_f("%s", e) : S_f("%s/../../examples/app/lab", self);
    e = getenv("NCU");
    const char *ncu = e && *e ? e : "/usr/local/cuda/bin/ncu";
    e = getenv("GMI_TEST_OUT");
    if (e && *e) {
        snprintf(dir, sizeof dir, "%s", e);
        mkdir(dir, 0755);
    } else {
        snprintf(dir, sizeof dir, "/tmp/gmi_test.XXXXXX");
        if (!mkdtemp(dir))
            return 2;
    }
    if (access(bin, X_OK) != 0 || access(lab, X_OK) != 0) {
        fprintf(stderr, "cannot run: %s or %s missing (make)\n", bin, lab);
        return 2;
    }
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    printf("inject_vs_ncu %s; outputs in %s\n\n== 1. the program, alone and under the tool\n",
           date, dir);

    double t_plain, t_tool, t_ncu, t_ncu2 = NAN, t_tool_grouped;
    cmd = S_f("'%s' > '%s/plain.out'", lab, dir);
    int rc_plain = S_sh(cmd, &t_plain);
    /* the same counters as ncu collects, and nothing more: the per-line pass
     * (extra runs of the program) is timed on its own, in the grouped run */
    cmd = S_f("GPUMEM_REPORT_DEBUG=1 '%s' collect --quiet --no-source-lines --launches each "
              "--json '%s/each.json' -- '%s' > '%s/tool.out' 2> '%s/tool.err'", bin, dir, lab,
              dir, dir);
    int rc_tool = S_sh(cmd, &t_tool);
    a = S_f("%s/plain.out", dir);
    b = S_f("%s/tool.out", dir);
    S_check(rc_plain == 0, "the lab alone exits 0 (%d)", rc_plain);
    S_check(rc_tool == rc_plain, "under the tool it exits %d, alone %d", rc_tool, rc_plain);
    S_check(S_same_file(a, b), "its stdout is the same byte for byte (%s, %s)", a, b);
    /* Its launches are replayed in batches (their arguments copied, the
     * memsets between them made again), none alone. */
    char *trace = S_read(S_f("%s/tool.err", dir));
    S_check(trace && strstr(trace, "debug: batch of ") && !strstr(trace, "debug: profiled launch"),
            "every launch replayed in a batch, none alone (trace in %s/tool.err)", dir);
    free(trace);

    cmd = S_f("'%s' --exit 3 > '%s/plain3.out'", lab, dir);
    int rc3 = S_sh(cmd, NULL);
    cmd = S_f("'%s' collect --quiet --json '%s/exit3.json' -- '%s' --exit 3 "
             "> '%s/tool3.out'", bin, dir, lab, dir);
    int rc3t = S_sh(cmd, NULL);
    a = S_f("%s/plain3.out", dir);
    b = S_f("%s/tool3.out", dir);
    S_check(rc3 == 3 && rc3t == 3, "--exit 3: alone %d, under the tool %d", rc3, rc3t);
    S_check(S_same_file(a, b), "--exit 3: the same stdout");

    cmd = S_f("'%s' collect --quiet --json '%s/grouped.json' -- '%s' > /dev/null",
             bin, dir, lab);
    int rcg = S_sh(cmd, &t_tool_grouped);
    S_check(rcg == 0, "grouped collection exits 0 (%d)", rcg);

    printf("\n== 2. what the tool saw\n");
    gm_results r, rg;
    gm_error err;
    path = S_f("%s/each.json", dir);
    if (gm_results_read_file(path, &r, &err) != GM_OK) {
        S_check(false, "read %s: %s", path, err.message);
        return 1;
    }
    path = S_f("%s/grouped.json", dir);
    if (gm_results_read_file(path, &rg, &err) != GM_OK) {
        S_check(false, "read %s: %s", path, err.message);
        return 1;
    }
    S_check(r.n_runs == N_LAUNCHES, "%zu runs, one per launch (expected %d)", r.n_runs,
            N_LAUNCHES);
    S_check(rg.n_runs == N_LAUNCHES / 2, "grouped: %zu runs (expected %d)", rg.n_runs,
            N_LAUNCHES / 2);
    /* The program's runs come sorted by GPU time, the costliest first; each
     * variant ends in " #N", N the launch's index in the program. */
    size_t at[N_LAUNCHES];
    bool seen[N_LAUNCHES] = {false};
    size_t nr = 0;
    for (size_t i = 0; i < r.n_runs; i++) {
        const char *h = r.runs[i].variant ? strrchr(r.runs[i].variant, '#') : NULL;
        char *end = NULL;
        long k = h ? strtol(h + 1, &end, 10) : -1;
        if (!h || *end != '\0' || k < 0 || k >= N_LAUNCHES || seen[k]) {
            S_check(false, "run %zu (%s) names no launch of its own", i,
                    r.runs[i].variant ? r.runs[i].variant : "?");
            continue;
        }
        seen[k] = true;
        at[k] = i;
    }
    while (nr < N_LAUNCHES && seen[nr])
        nr++;
    S_check(nr == N_LAUNCHES, "launches 0..%d each have a run (the first missing: %zu)",
            N_LAUNCHES - 1, nr);
    for (size_t i = 0; i < nr; i++) {
        const gm_run *run = &r.runs[at[i]];
        char range_note[128];
        snprintf(range_note, sizeof range_note, "NVTX range: %s", S_ranges[i]);
        S_check(run->kernel && strstr(run->kernel, S_kernels[i]) && S_has_note(run, range_note) &&
                    run->check.status == GM_CHECK_NO_REFERENCE,
                "launch %zu: %s, kernel %s, %s", i, run->variant, run->kernel ? run->kernel : "?",
                range_note);
    }
    for (size_t i = 0; i < rg.n_runs; i++)
        printf("     grouped run %zu: %s (%s), %zu timing samples\n", i, rg.runs[i].variant,
               rg.runs[i].kernel, rg.runs[i].timing.n);
    if (nr == N_LAUNCHES) {
        double c = gm_run_metric_num(&r.runs[at[0]], GM_M_LD_SPR);
        double s = gm_run_metric_num(&r.runs[at[2]], GM_M_LD_SPR);
        S_check(fabs(c - 4) < 0.05, "coalesced: %.3f sectors per load request (4)", c);
        S_check(fabs(s - 32) < 0.5, "strided: %.3f sectors per load request (32)", s);
        double wu = gm_run_metric_num(&r.runs[at[4]], GM_M_SH_LD_WAVES) /
                    gm_run_metric_num(&r.runs[at[4]], GM_M_SH_LD_INST);
        double wp = gm_run_metric_num(&r.runs[at[6]], GM_M_SH_LD_WAVES) /
                    gm_run_metric_num(&r.runs[at[6]], GM_M_SH_LD_INST);
        S_check(wu > 16, "unpadded: %.2f shared wavefronts per load (about 32)", wu);
        S_check(wp < 1.5, "padded: %.2f shared wavefronts per load (about 1)", wp);
    }

    printf("\n== 3. against ncu\n");
    const char *m[MAXM];
    size_t nm = 0;
    for (size_t i = 0; i < gm_catalog_len && nm < MAXM; i++)
        if (gm_catalog[i].is_default)
            m[nm++] = gm_catalog[i].name;
    static S_kernel k1[N_LAUNCHES + 8], k2[N_LAUNCHES + 8], d1[N_LAUNCHES + 8],
        d2[N_LAUNCHES + 8];
    size_t n1 = 0, n2 = 0, nd1 = 0, nd2 = 0;
    const char *dm[2] = {GM_M_DRAM_RD, GM_M_DRAM_WR};
    int rc = S_ncu(ncu, lab, dir, "1", m, nm, k1, &n1, &t_ncu);
    if (rc == 0)
        rc = S_ncu(ncu, lab, dir, "2", m, nm, k2, &n2, &t_ncu2);
    if (rc == 0)
        rc = S_ncu(ncu, lab, dir, "dram1", dm, 2, d1, &nd1, NULL);
    if (rc == 0)
        rc = S_ncu(ncu, lab, dir, "dram2", dm, 2, d2, &nd2, NULL);
    if (rc != 0) {
        S_check(false, "ncu ran (is it at %s? set NCU)", ncu);
        return 2;
    }
    S_check(n1 == N_LAUNCHES && n2 == N_LAUNCHES && nd1 == N_LAUNCHES && nd2 == N_LAUNCHES,
            "ncu profiled %zu, %zu, %zu, %zu launches (expected %d)", n1, n2, nd1, nd2,
            N_LAUNCHES);
    size_t nk = n1 < nr ? n1 : nr;
    nk = n2 < nk ? n2 : nk;
    nk = nd1 < nk ? nd1 : nk;
    nk = nd2 < nk ? nd2 : nk;
    double worst[MAXM] = {0};
    int bad[MAXM] = {0};
    printf("%-4s %-20s %-18s %14s %14s %14s %8s %s\n", "run", "kernel", "metric", "tool", "ncu",
           "ncu again", "diff", "verdict");
    for (size_t i = 0; i < nk; i++) {
        S_check(strstr(k1[i].name, S_kernels[i]) != NULL, "ncu's launch %zu is %s", i,
                k1[i].name);
        for (size_t j = 0; j < nm; j++) {
            metric_class c = gmt_metric_class(m[j]);
            double t = gm_run_metric_num(&r.runs[at[i]], m[j]);
            double n = k1[i].v[j], n2v = k2[i].v[j];
            if (c == MC_DRAM_WRITE) {
                n = d1[i].v[1];
                n2v = d2[i].v[1];
            }
            double slack = 0;
            if (c == MC_CONFLICT)
                slack = 0.1 * gm_run_metric_num(&r.runs[at[i]], strstr(m[j], "op_ld")
                                                                  ? GM_M_SH_LD_INST
                                                                  : GM_M_SH_ST_INST);
            if (isnan(slack))
                slack = 0;
            double rel, rel2;
            int v = gmt_compare(c, t, n, slack, &rel);
            if (v != 0 && !isnan(n2v) &&
                ((t >= fmin(n, n2v) && t <= fmax(n, n2v)) ||
                 gmt_compare(c, t, n2v, slack, &rel2) == 0))
                v = 0;
            if (rel > worst[j])
                worst[j] = rel;
            const gm_metric_info *info = gm_catalog_find(m[j]);
            printf("%-4zu %-20s %-18s %14.6g %14.6g %14.6g %7.2f%% %s\n", i, S_kernels[i],
                   info ? info->label : m[j], t, n, n2v, 100 * rel,
                   v == 0 ? "ok" : v == 1 ? "WARN" : "FAIL");
            if (v == 2) {
                bad[j]++;
                g_fail++;
            } else if (v == 1) {
                g_warn++;
            } else {
                g_pass++;
            }
        }
    }
    printf("\n%-70s %9s %5s\n", "metric", "worst", "fails");
    for (size_t j = 0; j < nm; j++)
        printf("%-70s %8.2f%% %5d\n", m[j], 100 * worst[j], bad[j]);

    printf("\n== 4. wall time, %d launches of 5 kernels, %zu metrics (%d profiler passes)\n",
           N_LAUNCHES, nm, r.collection.passes);
    printf("%-44s %8.2f s\n", "the lab alone", t_plain);
    printf("%-44s %8.2f s  (%.1fx the lab)\n", "gpumem-report collect (counters as ncu)", t_tool,
           t_tool / t_plain);
    const char *meth = rg.collection.source_lines_method ? rg.collection.source_lines_method
                                                         : "?";
    printf("%-44s %8.2f s  (per-line pass by %s: %lld launches traced, %.2f s)\n",
           "gpumem-report collect, with per-line counts", t_tool_grouped, meth,
           rg.collection.source_lines_launches,
           gm_value_num(&rg.collection.source_lines_seconds));
    printf("%-44s %8.2f s  (%.1fx the lab)\n", "ncu, same metrics, --cache-control all", t_ncu,
           t_ncu / t_plain);
    printf("%-44s %8.2f s\n", "ncu again", t_ncu2);
    printf("ncu / gpumem-report: %.1fx; per launch beyond the lab: tool %.0f ms, ncu %.0f ms\n",
           t_ncu / t_tool, 1e3 * (t_tool - t_plain) / N_LAUNCHES,
           1e3 * (t_ncu - t_plain) / N_LAUNCHES);
    printf("device: %s, driver %s, CUDA driver API %d, CUPTI %lld\n",
           r.device.name ? r.device.name : "?",
           r.device.driver_version ? r.device.driver_version : "?", r.device.cuda_driver_api,
           r.device.cupti_api);

    size_t sl_runs = 0, sl_got = 0;
    for (size_t i = 0; i < rg.n_runs; i++) {
        const gm_srclines *sl = &rg.runs[i].source_lines;
        sl_runs += sl->present;
        sl_got += sl->present && sl->status && strcmp(sl->status, "collected") == 0;
    }
    S_check(strcmp(meth, "replay") == 0 && sl_runs > 0 && sl_got == sl_runs,
            "per-line counts from the launches the counted run kept (%s), not a rerun: %zu of "
            "%zu kernels counted", meth, sl_got, sl_runs);

    printf("\n== 5. the paths a program may take (lab --extras)\n");
    cmd = S_f("'%s' --extras > '%s/extras-plain.out'", lab, dir);
    int rx = S_sh(cmd, NULL);
    cmd = S_f("GPUMEM_REPORT_DEBUG=1 '%s' collect --quiet --launches each --json "
              "'%s/extras.json' -- '%s' --extras > '%s/extras-tool.out' 2> '%s/extras-tool.err'",
              bin, dir, lab, dir, dir);
    int rxt = S_sh(cmd, NULL);
    S_check(rx == 0 && rxt == 0, "--extras: alone %d, under the tool %d", rx, rxt);
    S_check(S_same_file(S_f("%s/extras-plain.out", dir), S_f("%s/extras-tool.out", dir)),
            "--extras: the same stdout");
    gm_results rx_r;
    path = S_f("%s/extras.json", dir);
    if (gm_results_read_file(path, &rx_r, &err) != GM_OK) {
        S_check(false, "read %s: %s", path, err.message);
    } else {
        static const struct {
            const char *range;
            size_t runs;
        } want[] = {{"launch-ex", 1}, {"per-thread-stream", 1}, {"graph", 2},
                    {"after-reset", 0}};
        for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
            char *note = S_f("NVTX range: %s", want[w].range);
            size_t found = 0;
            for (size_t i = 0; i < rx_r.n_runs; i++)
                found += S_has_note(&rx_r.runs[i], note);
            S_check(found == want[w].runs, "--extras: %s: %zu runs profiled (want %zu)",
                    want[w].range, found, want[w].runs);
        }
        const char *sum = rx_r.n_experiments ? rx_r.experiments[0].summary : NULL;
        S_check(sum && strstr(sum, "graph") && strstr(sum, "cudaDeviceReset"),
                "--extras: the report says what was not profiled: %s", sum ? sum : "(none)");
        gm_results_free(&rx_r);
    }

    gm_results_free(&r);
    gm_results_free(&rg);
    printf("\ninject_vs_ncu: %d passed, %d warned, %d failed\n", g_pass, g_warn, g_fail);
    return g_fail ? 1 : 0;
}

/* md_method.c — "How these numbers were obtained": the device and software,
 * how times and counters were taken, validation, the model's predictions,
 * the metrics collected and the command that collected them.
 */
#include "md_int.h"
#include "srclines.h"

#include "../core/catalog.h"
#include "../core/say.h"

#include <string.h>

/* ---- how the numbers were obtained ---------------------------------------- */

static void S_shell_word(gm_buf *b, const char *w)
{
    bool plain = *w != '\0';
    for (const char *p = w; *p && plain; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                strchr("-_./:=,+@%", *p);
    if (plain) {
        gm_buf_puts(b, w);
        return;
    }
    gm_buf_putc(b, '\'');
    for (const char *p = w; *p; p++) {
        if (*p == '\'')
            gm_buf_puts(b, "'\\''");
        else
            gm_buf_putc(b, *p);
    }
    gm_buf_putc(b, '\'');
}

/* The runs of a results file counted by how they were timed and checked. */
typedef struct {
    size_t timed, flushed, gated, passed, failed, errors, not_run, unchecked;
} S_counts;

static S_counts S_count(const gm_results *r)
{
    S_counts n = {0};
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_run *run = &r->runs[i];
        if (run->timing.present) {
            n.timed++;
            n.flushed += run->timing.l2_flushed;
            n.gated += run->timing.gated;
        }
        switch (run->check.status) {
        case GM_CHECK_PASSED: n.passed++; break;
        case GM_CHECK_FAILED: n.failed++; break;
        case GM_CHECK_ERROR: n.errors++; break;
        case GM_CHECK_NOT_RUN: n.not_run++; break;
        case GM_CHECK_NO_REFERENCE: n.unchecked++; break;
        }
    }
    return n;
}

/* Whether every run is a kernel of a program (gpumem-report -- PROGRAM). */
static bool S_all_program(const gm_results *r)
{
    bool program = r->n_runs > 0;
    for (size_t i = 0; i < r->n_runs; i++)
        program = program && gm_run_is_program(&r->runs[i]);
    return program;
}

static void S_device_software(gm_buf *b, const gm_results *r)
{
    const gm_device *d = &r->device;
    gm_buf runtime = GM_BUF_INIT, commit = GM_BUF_INIT;   /* commit: " at commit `...`" */
    md_cuda_version(&runtime, d->cuda_runtime);
    if (r->commit)
        gm_say(&commit, r->dirty == 1 ? " at commit {} with uncommitted changes" : " at commit {}",
               GM_CODE(r->commit));
    gm_say(b, "- **Device and software.** {} (compute capability {}.{}), driver {}, CUDA runtime "
              "{}, CUPTI API {}; gpumem-report {}{}.\n",
           GM_TEXT(d->name ? d->name : "unknown device"), GM_INT(d->cc_major),
           GM_INT(d->cc_minor), GM_TEXT(d->driver_version ? d->driver_version : DASH),
           GM_BUF(&runtime), d->cupti_api > 0 ? GM_INT(d->cupti_api) : GM_LIT(DASH),
           GM_TEXT(r->tool_version ? r->tool_version : DASH), GM_BUF(&commit));
    gm_buf_free(&runtime);
    gm_buf_free(&commit);
}

static void S_times(gm_buf *b, const gm_collection *c, const S_counts *n, bool program)
{
    if (program)
        gm_buf_puts(b, "- **Times** are the profiler's own duration of each launch "
                       "(`gpu__time_duration.sum`, measured in one of its passes): the "
                       "program's launches are not repeated for timing. Where launches are "
                       "grouped, the tables give the median launch with the minimum, maximum and "
                       "number of launches, and the share of GPU time counts every launch. ");
    else
        gm_say(b, "- **Times** are taken with CUDA events around each launch alone: {} warm-up "
                  "launches are discarded, then {} repetitions are timed per run; the tables "
                  "give the median with the minimum, maximum and number of samples. ",
               GM_INT(c->timing_warmup), GM_INT(c->timing_repetitions));
    if (!program && n->gated > 0)
        gm_say(b, "Runs whose repetitions take under 2 ms ({} of the {} timed) enqueue them "
                  "behind a one-thread gate kernel and release them together, so a sample is "
                  "the kernel on the GPU, not the host's time to submit it. ",
               GM_INT((long long)n->gated), GM_INT((long long)n->timed));
    if (n->timed == 0)
        gm_buf_puts(b, "No run in this file has a time.\n");
    else if (n->flushed == n->timed && program)
        gm_buf_puts(b, "L2 was flushed before every pass, so each launch starts from DRAM.\n");
    else if (n->flushed == n->timed)
        gm_say(b, "L2 was flushed before every timed repetition (all {} timed runs), so each "
                  "repetition starts from DRAM.\n",
               GM_INT((long long)n->timed));
    else if (n->flushed == 0)
        gm_say(b, "L2 was not flushed between repetitions ({} timed runs): data left in L2 by "
                  "one repetition can serve the next.\n",
               GM_INT((long long)n->timed));
    else
        gm_say(b, "L2 was flushed before every timed repetition for {} of the {} timed runs.\n",
               GM_INT((long long)n->flushed), GM_INT((long long)n->timed));
}

static void S_counters(gm_buf *b, const gm_collection *c)
{
    gm_buf passes = GM_BUF_INIT;
    if (c->passes >= 0)
        gm_say(&passes, "{} replay pass{}", GM_INT(c->passes), GM_LIT(c->passes == 1 ? "" : "es"));
    else
        gm_buf_puts(&passes, "an unknown number of replay passes");
    bool as_found = c->clock_control && strcmp(c->clock_control, "none") == 0;
    gm_say(b, "- **Counters** (sectors, requests, efficiency, DRAM bytes, bank conflicts) come "
              "from CUPTI's range profiler: {} metrics in {} (replay mode {}, range mode {}), {}; "
              "clocks: {}{}.",
           GM_INT((long long)c->n_metrics), GM_BUF(&passes),
           GM_TEXT(c->replay_mode ? c->replay_mode : DASH),
           GM_TEXT(c->range_mode ? c->range_mode : DASH),
           GM_LIT(c->cache_flush ? "with L2 flushed before each pass"
                                 : "without flushing L2 between passes"),
           GM_TEXT(c->clock_control ? c->clock_control : DASH),
           GM_LIT(as_found ? " (left as found, not locked)" : ""));
    gm_buf_free(&passes);
    if (gm_value_present(&c->profile_seconds) && gm_value_present(&c->total_seconds))
        gm_say(b, " Profiling took {} s of a {} s collection.",
               GM_NUM(gm_value_num(&c->profile_seconds), 3),
               GM_NUM(gm_value_num(&c->total_seconds), 3));
    gm_buf_puts(b, "\n");
}

/* The pass under CUPTI's SASS metrics (collect --source-lines). */
static void S_source_lines(gm_buf *b, const gm_results *r, bool program)
{
    if (gm_srclines_md_method(b, r, program))   /* the method the file names (srclines.c) */
        return;
    const gm_collection *c = &r->collection;
    size_t got = 0, failed = 0;
    for (size_t i = 0; i < r->n_runs; i++) {
        const gm_srclines *sl = &r->runs[i].source_lines;
        if (!sl->present)
            continue;
        if (sl->status && strcmp(sl->status, "collected") == 0)
            got++;
        else
            failed++;
    }
    gm_say(b, "- **Per source line.** After the counter passes and the timing, one launch of "
              "each layout's kernel ran once more, alone, under CUPTI's SASS metrics: per "
              "instruction, global sectors and their ideal, shared wavefronts and their ideal, "
              "instructions executed; mapped to file and line with CUPTI's SASS-to-source "
              "correlation on the module's cubin (kernels built with `-lineinfo`). CUPTI 13.0 "
              "instruments only the first kernel function launched in a process, so {}",
           GM_LIT(program ? "the program ran once more per kernel, with its output discarded, "
                            "and that kernel's first launch was counted. "
                          : "each kernel ran in a process of its own, one case per layout: the "
                            "one whose counters show the most sectors per request and "
                            "wavefronts per shared instruction. "));
    gm_say(b, "{} kernel{} counted", GM_INT((long long)got), GM_LIT(got == 1 ? "" : "s"));
    if (failed)
        gm_say(b, ", {} not (the section says why)", GM_INT((long long)failed));
    if (gm_value_present(&c->source_lines_seconds)) {
        double seconds = gm_value_num(&c->source_lines_seconds);
        if (c->source_lines_launches > 0)
            gm_say(b, "; the pass took {} s ({} ms a kernel, process start included), not "
                      "counted in the profiling time above",
                   GM_NUM(seconds, 3),
                   GM_NUM(seconds * 1e3 / (double)c->source_lines_launches, 3));
        else
            gm_say(b, "; the pass took {} s, not counted in the profiling time above",
                   GM_NUM(seconds, 3));
    }
    gm_buf_puts(b, ".\n");
}

/* How a program's launches were replayed for the counters. */
static void S_replay(gm_buf *b, const gm_collection *c, bool program)
{
    if (program && c->replay_mode && strcmp(c->replay_mode, "application") == 0)
        gm_buf_puts(b, "- **Replay.** Application replay: the program ran once per profiler "
                       "pass, each run collecting one pass's metrics for every profiled launch "
                       "as the program itself made it (no launch repeated inside a run); the "
                       "runs launched the same kernels with the same grids in the same order, "
                       "and the counts of one launch come from the runs together. Only the "
                       "first run's output reached the terminal.\n");
    else if (program)
        gm_buf_puts(b, "- **Replay.** User replay inside the program, in batches. A batch "
                       "begins at a profiled launch, with the device memory it finds saved "
                       "(CUPTI checkpoint), and takes in the profiled launches after it as the "
                       "program makes them, until a call that could change device memory "
                       "otherwise (a copy to the device, a free, a kernel not profiled), 64 "
                       "launches or the program's end. Then every launch of the "
                       "batch is replayed once per pass from the saved memory, with the "
                       "program's memsets and device-to-device copies between them made again, "
                       "and the memory the program had left is restored, so it computes what "
                       "it computes without the tool. A launch whose arguments could not be "
                       "copied is replayed alone, and its notes say so.\n");
}

/* What a bandwidth in the tables means: a program's DRAM traffic, or the
 * suite's effective bandwidth and the ceiling it is compared with. */
static void S_bandwidth(gm_buf *b, const gm_device *d, const gm_ceiling *ceiling,
                        bool program)
{
    if (program) {
        gm_buf_puts(b, "- **Per launch.** A kernel's launches with one NVTX range and one launch "
                       "configuration are one row. Its counts are per launch: their sum over the "
                       "launches divided by the number of launches, with the smallest and largest "
                       "launch where they differ; sectors per request and efficiencies come from "
                       "the summed counts, rates and percentages are weighted by duration. "
                       "Columns marked \"all launches\" are totals. The useful bytes of a "
                       "program's kernel are not known to the tool, so its bandwidth is the DRAM "
                       "traffic (bytes read + written per launch over the time per launch), not "
                       "an effective bandwidth.\n");
        return;
    }
    gm_buf_puts(b, "- **Effective bandwidth** = (bytes the computation must read + bytes it "
                   "must write) / median time, in GB/s (10^9 bytes per second). It counts "
                   "each input and output once, so sectors a layout fetches in vain earn it "
                   "nothing. ");
    gm_say_arg copy = GM_GBS(gm_value_num(&d->copy_bandwidth_gbs));
    gm_buf on = GM_BUF_INIT;   /* " on 1.00 GiB": the size of the copy, when known */
    if (gm_value_present(&d->copy_bandwidth_bytes))
        gm_say(&on, " on {}", GM_BYTES(gm_value_num(&d->copy_bandwidth_bytes)));
    if (gm_value_present(&d->attainable_bandwidth_gbs) && ceiling->raised_by) {
        gm_buf who = GM_BUF_INIT;
        md_run_named(&who, ceiling->raised_by);
        gm_say(b, "The % of attainable compares it with the best bandwidth measured: the best "
                  "of a few plain copy and read kernels (4-, 8- and 16-byte accesses, several "
                  "grid sizes) measured on this device at startup, {}, raised to the effective "
                  "or DRAM bandwidth of any run that went faster (here {}, by {}); cudaMemcpy "
                  "reached {}{}, bytes read plus bytes written.\n",
               GM_GBS(gm_value_num(&d->attainable_bandwidth_gbs)), GM_GBS(ceiling->gbs),
               GM_BUF(&who), copy, GM_BUF(&on));
        gm_buf_free(&who);
    } else if (gm_value_present(&d->attainable_bandwidth_gbs)) {
        gm_say(b, "The % of attainable compares it with the best bandwidth measured: the best "
                  "of a few plain copy and read kernels (4-, 8- and 16-byte accesses, several "
                  "grid sizes) measured on this device at startup, {}, raised to the effective "
                  "or DRAM bandwidth of any run that went faster; cudaMemcpy reached {}{}, bytes "
                  "read plus bytes written.\n",
               GM_GBS(gm_value_num(&d->attainable_bandwidth_gbs)), copy, GM_BUF(&on));
    } else {
        gm_say(b, "The % of copy bandwidth compares it with a device-to-device copy measured on "
                  "this device (this results file has no attainable ceiling): {}{}, bytes read "
                  "plus bytes written.\n",
               copy, GM_BUF(&on));
    }
    gm_buf_free(&on);
}

static void S_validation(gm_buf *b, const S_counts *n)
{
    if (n->unchecked && !(n->passed || n->failed || n->errors || n->not_run))
        gm_say(b, "- **Validation.** None: the {} runs are kernels of a program, measured as it "
                  "ran them. A program's output is its own; there is no CPU reference to compare "
                  "it with.\n",
               GM_INT((long long)n->unchecked));
    else
        gm_say(b, "- **Validation.** Each run's output is compared with a CPU reference before "
                  "it is measured: {} passed, {} failed, {} stopped with an error, {} did not "
                  "run{}. Runs that did not pass are never compared or charted.\n",
               GM_INT((long long)n->passed), GM_INT((long long)n->failed),
               GM_INT((long long)n->errors), GM_INT((long long)n->not_run),
               GM_LIT(n->unchecked ? "; the kernels of a program have no reference" : ""));
}

static void S_predictions(gm_buf *b, const gm_results *r)
{
    size_t predicted = 0, scaled = 0, traced = 0;
    for (size_t i = 0; i < r->n_runs; i++) {
        if (gm_run_gpu_traced(&r->runs[i])) {
            traced++;
            continue;
        }
        predicted += gm_run_has_prediction(&r->runs[i]);
        scaled += gm_run_has_prediction(&r->runs[i]) && r->runs[i].prediction.scaled;
    }
    if (traced)
        gm_say(b, "- **Predictions** ({} of {} runs, a launch of each kernel the per-line pass "
                  "traced) are the tracer's counts of that launch: its real addresses, every "
                  "warp, counted on the GPU under the address-trace model's rules "
                  "(docs/model.md), set against the counters of the same launch. They say "
                  "nothing of caches, DRAM or time.\n",
               GM_INT((long long)traced), GM_INT((long long)r->n_runs));
    if (predicted) {
        gm_say(b, "- **Predictions** ({} of {} runs) come from the address-trace model "
                  "(docs/model.md): each warp's addresses are replayed on the CPU and the "
                  "sectors, requests and shared-memory wavefronts ncu would count are counted; "
                  "{} of them traced a sample of the warps and scaled it. The model says nothing "
                  "of caches, DRAM or time.\n",
               GM_INT((long long)predicted), GM_INT((long long)r->n_runs),
               GM_INT((long long)scaled));
    }
}

static void S_sizes(gm_buf *b, const gm_results *r, bool timestamp)
{
    const gm_collection *c = &r->collection;
    gm_say_arg set = GM_TEXT(c->size_set ? c->size_set : DASH);
    if (timestamp)
        gm_say(b, "- **Sizes**: the {} size set. Taken at {}.\n\n", set,
               GM_TEXT(r->taken_at ? r->taken_at : DASH));
    else
        gm_say(b, "- **Sizes**: the {} size set.\n\n", set);
}

/* The Markdown forms send the reader to the HTML report; the page lists
 * every metric with its Nsight Compute name and meaning. */
static void S_metrics(gm_buf *b, const gm_results *r, bool html)
{
    const gm_collection *c = &r->collection;
    if (c->n_metrics && !html) {
        gm_say(b, "The {} metrics collected, with the Nsight Compute name and meaning of each, "
                  "are listed in the HTML report, which also gives the minimum and maximum time "
                  "of each run beside its median.\n\n",
               GM_INT((long long)c->n_metrics));
    } else if (c->n_metrics) {
        gm_buf_puts(b, "### Metrics collected\n\n"
                       "| Label | Nsight Compute metric | Unit | What it counts |\n"
                       "|---|---|---|---|\n");
        for (size_t i = 0; i < c->n_metrics; i++) {
            const char *name = c->metrics[i];
            const gm_metric_info *m = gm_catalog_find(name);
            const char *unit = m ? m->unit : NULL;
            for (size_t k = 0; !unit && k < r->n_runs; k++) {
                const gm_metric *x = gm_run_metric(&r->runs[k], name);
                if (x && x->unit)
                    unit = x->unit;
            }
            gm_say(b, "| {} | {} | {} | {} |\n", GM_TEXT(m ? m->label : DASH), GM_CODE(name),
                   GM_TEXT(unit && *unit ? unit : DASH),
                   GM_TEXT(m ? m->meaning : "not in gpumem-report's catalog"));
        }
        gm_buf_puts(b, "\n");
    }
}

/* The command line of the collection, in a code block a shell can take. */
static void S_command(gm_buf *b, const gm_collection *c)
{
    gm_buf cmd = GM_BUF_INIT;
    for (size_t i = 0; i < c->n_command; i++) {
        if (i)
            gm_buf_putc(&cmd, ' ');
        S_shell_word(&cmd, c->command[i] ? c->command[i] : "");
    }
    /* a fence longer than any run of backquotes inside */
    size_t longest = 0, run = 0;
    for (size_t i = 0; i < cmd.len; i++) {
        run = cmd.data[i] == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    size_t fence = longest < 3 ? 3 : longest + 1;
    gm_buf_puts(b, "### The command that produced the results\n\n");
    for (size_t i = 0; i < fence; i++)
        gm_buf_putc(b, '`');
    gm_buf_puts(b, "sh\n");
    /* control characters other than newline would not survive a code block */
    for (size_t i = 0; i < cmd.len; i++) {
        unsigned char ch = (unsigned char)cmd.data[i];
        gm_buf_putc(b, (ch < 0x20 && ch != '\n') || ch == 0x7f ? ' ' : (char)ch);
    }
    gm_buf_puts(b, "\n");
    for (size_t i = 0; i < fence; i++)
        gm_buf_putc(b, '`');
    gm_buf_puts(b, "\n\n");
    gm_buf_free(&cmd);
}

void md_method(gm_buf *b, const gm_results *r, const gm_sections *ss, bool timestamp,
               bool html)
{
    const gm_collection *c = &r->collection;
    S_counts n = S_count(r);
    bool program = S_all_program(r);
    (void)ss;

    gm_buf_puts(b, "## How these numbers were obtained\n\n");

    S_device_software(b, r);
    S_times(b, c, &n, program);
    S_counters(b, c);
    if (c->source_lines)
        S_source_lines(b, r, program);
    S_replay(b, c, program);
    gm_ceiling ceiling;
    gm_results_ceiling(r, &ceiling);
    S_bandwidth(b, &r->device, &ceiling, program);
    S_validation(b, &n);
    S_predictions(b, r);
    S_sizes(b, r, timestamp);
    S_metrics(b, r, html);
    if (c->n_command)
        S_command(b, c);
}

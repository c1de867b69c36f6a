/* fanout.h — `--device all|N,N`: one process per GPU, at the same time.
 *
 * Each device's process is this program again ("collect" with the run's
 * options, its own --device and --json), started through core/proc.h: its
 * stdout and stderr relayed line by line onto the log, each line after
 * "[gpu N] ", and SIGTERM sent to it when this process dies.  When all have
 * ended, each device's results file is read, a line per device says how it
 * went, and (the main job) one report renders the devices side by side, or
 * the one device that has results.  A device that fails costs its own
 * results only.
 *
 * Part of orchestrate/ (program.h says what the layer is). */
#ifndef GM_ORCH_FANOUT_H
#define GM_ORCH_FANOUT_H

#include "../core/gm_error.h"
#include "../reports/render.h"

#include <stdbool.h>
#include <stdio.h>

typedef struct {
    const int *devices;         /* the GPUs, one process each */
    int n;
    const char *exe;            /* the program started per device */
    char *const *args;          /* the options every device's process gets after "collect",
                                   NULL-terminated; --device and --json follow them */
    char *const *json;          /* each device's results path, expanded (json[i]: devices[i]) */
    FILE *log;                  /* relayed lines, failures to start, the summary */
    bool quiet;                 /* no progress lines (the summary and failures remain) */
    const gm_render_opts *render; /* the main job: the report of them all; NULL: none */
} gm_fan_out_spec;

/* The results path of each device: `json` (NULL: `out`'s name with .json,
 * out expanded for the device) with its patterns expanded for the device
 * (core/pathpat.h); a pattern without %d gets "-gpuN" before its extension
 * when there are several devices.  Two devices that would write one file
 * are refused.  *paths: n strings, the caller frees each and the array. */
gm_status gm_fan_out_paths(const char *json, const char *out, const int *devices, int n,
                           char ***paths, gm_error *err);

/* Run them all and render; the exit status of the whole (0 when every device
 * gave results and the report was written; else the worst device's status,
 * 1 for a device killed or without results, 2 when the report could not be
 * drawn: gnuplot). */
int gm_fan_out(const gm_fan_out_spec *s);

#endif

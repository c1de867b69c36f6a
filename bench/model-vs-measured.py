#!/usr/bin/env python3
"""model-vs-measured.py: the address-trace model's prediction beside the
measurement, run by run, for the counters the model is meant to get exactly.

    python3 bench/model-vs-measured.py results.json [--floor 64] [--extra] [--quiet]
                                       [--title LINE]...
    python3 bench/model-vs-measured.py results.json --shared-excess [rerun.json ...]

For every run of a results file (docs/results-format.md) that has both
measured metrics and a prediction, prints measured, predicted and the
relative difference (measured - predicted) / predicted of

    global  load and store sectors and requests   (l1tex__t_{sectors,requests}_...)
    shared  load and store wavefronts              (l1tex__data_pipe_lsu_wavefronts_...)
    shared  load and store instructions            (smsp__inst_executed_op_shared_...)

(--extra adds global instructions and shared bank conflicts), then a summary:
how many pairs agree exactly, within 1 %, 2 %, 5 % and beyond, and the list
of pairs beyond 2 % and more than --floor counts apart, each with the
prediction notes that speak to its memory space (the run's own explanation,
or the lack of one).

With --shared-excess [OTHER.json ...] it prints instead, for every run with
shared-memory instructions, what the measured wavefronts carry beyond the
prediction, beside how the launch fills the GPU (blocks per SM, waves of
resident blocks, achieved occupancy) and the global load sectors the excess
may be compared with; OTHER files (re-runs of the same kernels) add their
excess in further columns, to show how much of it changes from run to run.

Standard library only; reads its files, writes to stdout; exit status 0, or
2 on a file that cannot be read or is not a results file.
"""
import argparse
import json
import math
import signal
import sys

# (metric, short label, space the notes must speak to)
CORE = [
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "global ld sectors", "global"),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "global ld requests", "global"),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "global st sectors", "global"),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "global st requests", "global"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared ld wavefronts", "shared"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "shared st wavefronts", "shared"),
    ("smsp__inst_executed_op_shared_ld.sum", "shared ld inst", "shared"),
    ("smsp__inst_executed_op_shared_st.sum", "shared st inst", "shared"),
]
EXTRA = [
    ("smsp__sass_inst_executed_op_global_ld.sum", "global ld inst", "global"),
    ("smsp__sass_inst_executed_op_global_st.sum", "global st inst", "global"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared ld conflicts", "shared"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared st conflicts", "shared"),
]

# Words by which a prediction note speaks to a space.  The first note of every
# prediction (how it was made) and the caching note are generic: left out.
NOTE_WORDS = {
    "global": ("global", "request", "sector", "predicat", "guard", "sampl", "partial",
               "unroll", "remainder", "vectoris", "vectoriz", "LDG", "STG"),
    "shared": ("shared", "wavefront", "bank", "conflict", "LDS", "STS", "sampl"),
}
GENERIC_PREFIXES = ("Predicted on the CPU", "Sectors are counted where ncu counts them",
                    "Folded, not sampled")


def die(msg):
    print("model-vs-measured: " + msg, file=sys.stderr)
    sys.exit(2)


def value(metrics, name):
    """The number under metrics[name].value, or None (absent, null, not a number)."""
    m = metrics.get(name) if isinstance(metrics, dict) else None
    v = m.get("value") if isinstance(m, dict) else None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def params_text(run):
    p = run.get("params") or {}
    return " ".join("%s=%s" % (k, v) for k, v in p.items()) if isinstance(p, dict) else ""


def rel(measured, predicted):
    """(measured - predicted) / predicted; 0 when both are 0, inf when only predicted is."""
    if measured == predicted:
        return 0.0
    if predicted == 0:
        return math.inf
    return (measured - predicted) / abs(predicted)


def fmt_rel(r):
    if math.isinf(r):
        return "     inf"
    return "%+7.2f%%" % (100.0 * r)


def notes_for(pred, space):
    words = NOTE_WORDS[space]
    out = []
    for n in pred.get("notes") or []:
        if not isinstance(n, str) or n.startswith(GENERIC_PREFIXES):
            continue
        low = n.lower()
        if any(w.lower() in low for w in words):
            out.append(n)
    return out


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        die("%s: %s" % (path, e.strerror or e))
    except json.JSONDecodeError as e:
        die("%s:%d:%d: not JSON: %s" % (path, e.lineno, e.colno, e.msg))
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
        die("%s: no \"runs\" array: not a gpumem-report results file" % path)
    return doc


def run_key(run):
    return (run.get("experiment"), run.get("variant"),
            json.dumps(run.get("params"), sort_keys=True))


def resident_blocks(run, dev):
    """Blocks of this launch one SM can hold at once (sm_90 limits: 32 blocks,
    64 warps, 65536 registers allocated 256 per warp, 228 KiB of shared memory
    with 1 KiB reserved per block), or None when the launch is not described."""
    launch = run.get("launch") or {}
    block = launch.get("block") or []
    if len(block) != 3 or not all(isinstance(b, int) and b > 0 for b in block):
        return None
    warps = (block[0] * block[1] * block[2] + 31) // 32
    n = min(32, 64 // warps)
    regs = launch.get("registers")
    if isinstance(regs, int) and regs > 0:
        per_warp = (regs * 32 + 255) // 256 * 256
        n = min(n, 65536 // (per_warp * warps))
    smem = launch.get("shared_bytes")
    if isinstance(smem, int) and smem > 0:
        n = min(n, (228 * 1024) // (smem + 1024))
    return max(n, 0) or None


SH = [("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "ld",
       "smsp__inst_executed_op_shared_ld.sum"),
      ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "st",
       "smsp__inst_executed_op_shared_st.sum")]


def shared_excess(doc, path, others):
    dev = doc.get("device") or {}
    sms = dev.get("sm_count") or 0
    print("# shared-memory wavefronts measured beyond the prediction, per run")
    print("# results: %s (%s, %s)%s" % (path, dev.get("name"), doc.get("taken_at"), "".join(
        "; re-run %d: %s (%s)" % (i + 1, p, o.get("taken_at")) for i, (p, o) in
        enumerate(others))))
    print("# blocks/SM: grid blocks over %s SMs; waves: blocks over the blocks all SMs hold at "
          "once (sm_90 limits, ~); occ: sm__warps_active %% of peak;" % sms)
    print("# excess: (measured - predicted) / predicted wavefronts, first file then re-runs, "
          "where the shared instructions agree;")
    print("# per ldsec: excess wavefronts (first file) per measured global load sector")
    print()
    idx = [{run_key(r): r for r in o["runs"] if isinstance(r, dict)} for _, o in others]
    head = "%-44s %8s %8s %6s %5s  %-3s %13s %-24s %9s" % (
        "run", "blocks", "blk/SM", "waves", "occ", "op", "predicted", "excess", "per ldsec")
    print(head)
    for run in doc["runs"]:
        if not isinstance(run, dict):
            continue
        pred = run.get("prediction")
        meas = run.get("metrics")
        if not isinstance(pred, dict) or not isinstance(meas, dict):
            continue
        pm = pred.get("metrics") or {}
        if not any(value(meas, m) for m, _, _ in SH):
            continue
        launch = run.get("launch") or {}
        grid = launch.get("grid") or [0, 0, 0]
        blocks = grid[0] * grid[1] * grid[2] if len(grid) == 3 else 0
        res = resident_blocks(run, dev)
        waves = "%6.2f" % (blocks / (res * sms)) if res and sms else "     -"
        occ = value(meas, "sm__warps_active.avg.pct_of_peak_sustained_active")
        ldsec = value(meas, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
        name = "%s/%s %s" % (run.get("experiment"), run.get("variant"), params_text(run))
        for metric, op, inst in SH:
            p, m = value(pm, metric), value(meas, metric)
            if p is None or m is None or (p == 0 and m == 0):
                continue
            if value(pm, inst) != value(meas, inst):
                # not an excess: the trace has other instructions than the kernel
                print("%-44s %8d %8s %6s %5s  %-3s %13s instructions differ (%s measured, %s "
                      "predicted): not comparable" % (
                          name[:44], blocks, "", "", "", op, "{:,}".format(p),
                          "{:,}".format(value(meas, inst)), "{:,}".format(value(pm, inst))))
                continue
            cols = [fmt_rel(rel(m, p)).strip()]
            for ix in idx:
                o = ix.get(run_key(run))
                om = value(o.get("metrics"), metric) if o else None
                cols.append(fmt_rel(rel(om, p)).strip() if om is not None else "-")
            per = "%9.4f" % ((m - p) / ldsec) if ldsec else "        -"
            print("%-44s %8d %8.1f %s %5s  %-3s %13s %-24s %s" % (
                name[:44], blocks, blocks / sms if sms else 0, waves,
                "%5.1f" % occ if occ is not None else "-", op, "{:,}".format(p),
                " ".join(cols), per))
    return 0


def main():
    # `| head` ends the output quietly
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", help="results JSON file (gpumem-report --json)")
    ap.add_argument("--floor", type=int, default=64,
                    help="a pair counts as a mismatch only when more than this many counts "
                         "apart as well as beyond 2%% (default 64)")
    ap.add_argument("--extra", action="store_true",
                    help="also global instructions and shared bank conflicts")
    ap.add_argument("--quiet", action="store_true", help="summary and mismatches only")
    ap.add_argument("--shared-excess", nargs="*", metavar="RERUN",
                    help="the shared-memory excess table instead (with re-runs of the same "
                         "kernels to compare)")
    ap.add_argument("--title", action="append", default=[],
                    help="a line printed first, after '# ' (repeatable): what the file documents")
    a = ap.parse_args()

    doc = load(a.results)
    if a.shared_excess is not None:
        for t in a.title:
            print("# " + t)
        return shared_excess(doc, a.results, [(p, load(p)) for p in a.shared_excess])

    counters = CORE + (EXTRA if a.extra else [])
    dev = doc.get("device") or {}
    for t in a.title:
        print("# " + t)
    print("# results: %s" % a.results)
    print("# commit %s%s, taken %s on %s (driver %s)" % (
        doc.get("commit"), " (dirty)" if doc.get("dirty") else "", doc.get("taken_at"),
        dev.get("name"), dev.get("driver_version")))
    print("# counters: %s" % ", ".join(c[1] for c in counters))
    print("# rel = (measured - predicted) / predicted; a mismatch is |rel| > 2 %% and more "
          "than %d counts apart" % a.floor)
    print()

    pairs = []          # (run, label, space, measured, predicted, rel, scaled)
    no_pred = no_meas = 0
    for run in doc["runs"]:
        if not isinstance(run, dict):
            continue
        pred = run.get("prediction")
        meas = run.get("metrics")
        if not isinstance(pred, dict) or not isinstance(pred.get("metrics"), dict):
            no_pred += 1
            continue
        if not isinstance(meas, dict) or not meas:
            no_meas += 1
            continue
        name = "%s/%s %s" % (run.get("experiment"), run.get("variant"), params_text(run))
        rows, zeros = [], 0
        for metric, label, space in counters:
            m, p = value(meas, metric), value(pred["metrics"], metric)
            if m is None or p is None:
                continue
            r = rel(m, p)
            pairs.append((run, name, label, space, m, p, r))
            if m == 0 and p == 0:
                zeros += 1
            else:
                rows.append("  %-22s %15s %15s %s" % (label, "{:,}".format(m), "{:,}".format(p),
                                                     fmt_rel(r)))
        if a.quiet:
            continue
        scaled = " (sampled: %s of %s warps)" % (pred.get("warps_traced"),
                                                  pred.get("warps_total")) \
            if pred.get("scaled") else ""
        print("%s%s" % (name, scaled))
        if rows:
            print("  %-22s %15s %15s %8s" % ("counter", "measured", "predicted", "rel"))
            for line in rows:
                print(line)
        if zeros:
            print("  (%d more: 0 measured, 0 predicted)" % zeros)

    n = len(pairs)
    if not a.quiet:
        print()
    print("== summary: %d (run, counter) pairs from %d runs with both a measurement and a "
          "prediction" % (n, len({id(p[0]) for p in pairs})))
    if no_pred or no_meas:
        print("   (left out: %d runs without a prediction, %d without measured metrics)"
              % (no_pred, no_meas))
    if n == 0:
        return 0
    absr = [abs(p[6]) for p in pairs]
    exact = sum(1 for p in pairs if p[4] == p[5])
    bands = [("exact", exact)]
    for lim in (0.01, 0.02, 0.05):
        bands.append(("within %g %%" % (100 * lim), sum(1 for r in absr if r <= lim)))
    bands.append(("beyond 5 %", sum(1 for r in absr if r > 0.05)))
    for label, k in bands:
        print("   %-12s %5d  (%5.1f %%)" % (label, k, 100.0 * k / n))
    beyond = [p for p in pairs if abs(p[6]) > 0.02 and abs(p[4] - p[5]) > a.floor]
    small = sum(1 for p in pairs if abs(p[6]) > 0.02 and abs(p[4] - p[5]) <= a.floor)
    print("   beyond 2 %% and more than %d counts apart: %d (%d more beyond 2 %% by at most "
          "%d counts)" % (a.floor, len(beyond), small, a.floor))
    by_counter = {}
    for p in beyond:
        by_counter[p[2]] = by_counter.get(p[2], 0) + 1
    for label, k in sorted(by_counter.items(), key=lambda kv: -kv[1]):
        print("     %-22s %4d" % (label, k))

    if beyond:
        print()
        print("== beyond 2 %, each run with what its prediction notes say about the space")
        groups = {}
        for item in beyond:
            groups.setdefault(item[1], []).append(item)
        for name, items in groups.items():
            print()
            print(name)
            for run, _, label, space, m, p, r in items:
                print("  %-22s %15s %15s %s" % (label, "{:,}".format(m), "{:,}".format(p),
                                               fmt_rel(r)))
            run = items[0][0]
            for space in sorted({it[3] for it in items}):
                notes = notes_for(run["prediction"], space)
                if not notes:
                    print("  [%s] no note of the prediction explains a difference here" % space)
                for t in notes:
                    print("  [%s] note: %s" % (space, t))
    return 0


if __name__ == "__main__":
    sys.exit(main())

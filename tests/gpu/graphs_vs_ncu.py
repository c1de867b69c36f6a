#!/usr/bin/env python3
"""graphs_vs_ncu.py TOOL.json NCU.csv LABEL — a program's launches under
`gpumem-report collect --launches each` against `ncu --csv --print-units base
--graph-profiling node` with the same metrics (tests/gpu/graphs_device.sh).

Kernels are paired in launch order (the tool's launch index, ncu's ID), by
name; a pair whose names differ is reported and the rest are paired again
from the next name that matches.  Per value: counts (.sum of sectors,
requests, instructions, wavefronts, conflicts) must agree within 1 %, ratios
and efficiencies within 2 % or 2 points, DRAM bytes within 2 MiB (ncu's
multi-pass replay writes more, bench/results/dram-write-replay-*); durations,
rates, hit rates, % of peak and occupancy are listed, not judged.  Runs the
tool did not replay (not_replayed) have no counters and are listed apart.
Prints a summary line starting with the label; exit 0 when every judged value
agrees and the kernel counts are equal.
"""
import csv
import json
import re
import sys


def base(name):
    """The function's base name: no return type, parameters, namespace, template."""
    depth, cut = 0, len(name)
    for i, c in enumerate(name):
        if c == "<":
            depth += 1
        elif c == ">" and depth:
            depth -= 1
        elif c == "(" and depth == 0 and not name.startswith("(anonymous", i):
            cut = i
            break
    s = name[:cut]
    depth, start, out = 0, 0, []
    for i, c in enumerate(s):
        if c == "<":
            depth += 1
        elif c == ">" and depth:
            depth -= 1
        elif depth == 0 and c == " ":
            start = i + 1
    s = s[start:]
    depth, last = 0, 0   # the last "::" outside template arguments
    for i, c in enumerate(s):
        if c == "<":
            depth += 1
        elif c == ">" and depth:
            depth -= 1
        elif depth == 0 and s.startswith("::", i):
            last = i + 2
    return s[last:].split("<")[0].strip()


def judge(metric, tool, ncu):
    """None: not judged; else True/False."""
    if tool is None or ncu is None:
        return None
    if metric.startswith("dram__bytes_read") or metric.startswith("dram__bytes_write"):
        return abs(tool - ncu) <= 2 * 1024 * 1024
    if any(k in metric for k in ("time_duration", "per_second", "pct_of_peak", "hit_rate",
                                 "warps_active", "dram__bytes.sum")):
        return None
    if metric.endswith(".sum"):
        return abs(tool - ncu) <= max(1.0, 0.01 * abs(ncu))
    if metric.endswith(".pct"):
        return abs(tool - ncu) <= 2.0
    if metric.endswith(".ratio"):
        return abs(tool - ncu) <= max(0.02 * abs(ncu), 0.05)
    return None


def num(v):
    try:
        return float(str(v).replace(",", ""))
    except ValueError:
        return None


def main():
    tool_path, ncu_path, label = sys.argv[1], sys.argv[2], sys.argv[3]
    doc = json.load(open(tool_path))
    runs = {}
    for r in doc["runs"]:
        launch = None
        for note in r.get("notes", []):
            m = re.search(r"launch (\d+) of the program", note)
            if m:
                launch = int(m.group(1))
        if launch is not None:
            runs[launch] = r
    summary = doc["experiments"][0].get("summary") or ""
    m = re.search(r"It launched (\d+) kernel", summary)
    tool_launches = int(m.group(1)) if m else None

    lines = [l for l in open(ncu_path, errors="replace") if l.startswith('"')]
    ncu = {}   # ID -> (name, {metric: value})
    for row in csv.DictReader(lines):
        if not row.get("ID", "").isdigit():
            continue
        k = int(row["ID"])
        ncu.setdefault(k, [row["Kernel Name"], {}])[1][row["Metric Name"]] = num(row["Metric Value"])

    ids = sorted(ncu)
    launches = sorted(runs)
    agree = differ = listed = 0
    timed = []
    out = []
    i = j = 0
    while i < len(ids) and j < len(launches):
        nname, nvals = ncu[ids[i]]
        run = runs[launches[j]]
        if run.get("not_replayed"):
            timed.append((launches[j], run["variant"], run.get("timing") or {}))
            # a graph timed whole stands for its kernel nodes: skip ncu's kernels of it
            m = re.search(r"its (\d+) kernel node", run["not_replayed"])
            i += int(m.group(1)) if (m and not run.get("launch")) else 1
            j += 1
            continue
        if base(nname) != base(run["kernel"] or ""):
            out.append(f"  name differs: ncu {ids[i]} {base(nname)} / tool launch {launches[j]} "
                       f"{base(run['kernel'] or '')}")
            # skip on the side that is ahead
            if j + 1 < len(launches) and base(runs[launches[j + 1]]["kernel"] or "") == base(nname):
                j += 1
            else:
                i += 1
            continue
        bad = []
        for metric, nv in nvals.items():
            tv = (run["metrics"].get(metric) or {}).get("value")
            ok = judge(metric, tv, nv)
            if ok is None:
                listed += 1
            elif ok:
                agree += 1
            else:
                differ += 1
                bad.append(f"{metric} tool {tv} ncu {nv}")
        dur_t = (run["metrics"].get("gpu__time_duration.sum") or {}).get("value")
        dur_n = nvals.get("gpu__time_duration.sum")
        graph = " (graph node)" if any("in a CUDA graph" in n for n in run.get("notes", [])) else ""
        out.append(f"  {ids[i]:>3} {base(nname)[:40]:<40}{graph:<13} duration tool {dur_t} ns, "
                   f"ncu {dur_n} ns" + ("" if not bad else "; DIFFER: " + "; ".join(bad)))
        i += 1
        j += 1
    print(f"{label}: ncu profiled {len(ids)} kernels; the tool counted {tool_launches} launches, "
          f"{len(runs)} runs ({len(timed)} not replayed); values judged: {agree} agree, "
          f"{differ} differ ({listed} listed, not judged)")
    for t in timed:
        ms = t[2].get("median")
        print(f"  not replayed: launch {t[0]} {t[1]}: {ms} ms (its own execution)")
    print("\n".join(out))
    return 0 if differ == 0 and tool_launches == len(ids) else 1


if __name__ == "__main__":
    sys.exit(main())

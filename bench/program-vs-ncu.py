#!/usr/bin/env python3
"""program-vs-ncu.py EACH.json NCU.csv — every count of every launch, the
tool's (gpumem-report collect --launches each) against ncu's CSV
(--csv --print-units base), launch by launch in program order.  Counts
(sectors, requests, instructions, wavefronts, conflicts) must be equal;
DRAM bytes are compared too and their largest relative difference is
reported (DRAM traffic of a kernel varies from run to run by refreshes and
page-table walks).  Last line: the summary bench/program-vs-ncu.sh prints."""
import csv, io, json, sys

runs = json.load(open(sys.argv[1]))["runs"]
text = open(sys.argv[2], errors="replace").read()
start = text.find('"ID"')
rows = list(csv.DictReader(io.StringIO(text[start:]))) if start >= 0 else []
ncu = {}
names = {}
for r in rows:
    try:
        i = int(r["ID"])
    except (KeyError, ValueError):
        continue
    v = r.get("Metric Value", "").replace(",", "")
    try:
        ncu.setdefault(i, {})[r["Metric Name"]] = float(v)
    except ValueError:
        pass
    names[i] = r.get("Kernel Name", "")
import re


def launch_of(run):
    """The launch's index in the program: its note "launch N of the program"."""
    for note in run.get("notes") or []:
        m = re.search(r"\blaunch (\d+) of the program", note)
        if m:
            return int(m.group(1))
    return -1


tool = sorted(runs, key=launch_of)
exact = [m for m in (runs[0]["metrics"] if runs else {})
         if m.endswith(".sum") and "dram__" not in m and "gpu__time" not in m and "per_second" not in m]
dram = [m for m in (runs[0]["metrics"] if runs else {}) if m in ("dram__bytes_read.sum", "dram__bytes_write.sum")]
n_eq = n_cmp = 0
worst_dram = 0.0
bad = []
for run in tool:
    k = launch_of(run)
    if k not in ncu:
        bad.append(f"launch {k}: ncu has no row")
        continue
    for m in exact:
        a = run["metrics"][m]["value"]
        b = ncu[k].get(m)
        if a is None or b is None:
            continue
        n_cmp += 1
        if float(a) == b:
            n_eq += 1
        else:
            bad.append(f"launch {k} {run['variant']}: {m} tool {a} ncu {b:.0f}")
    for m in dram:
        a = run["metrics"][m]["value"]
        b = ncu[k].get(m)
        if a is None or b is None or max(a, b) == 0:
            continue
        worst_dram = max(worst_dram, abs(a - b) / max(a, b))
for line in bad[:20]:
    print(line)
print(f"tool {len(tool)} launches, ncu {len(ncu)}; counts equal {n_eq}/{n_cmp}; "
      f"DRAM bytes within {100 * worst_dram:.2f}%")

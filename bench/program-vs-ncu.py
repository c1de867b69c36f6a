#!/usr/bin/env python3
"""program-vs-ncu.py EACH.json NCU.csv — every count of every launch, the
tool's (gpumem-report collect --launches each) against ncu's CSV
(--csv --print-units base), launch by launch in program order.  Counts
(sectors, requests, instructions) must be equal; shared-memory wavefronts and
bank conflicts, and DRAM bytes, vary between runs of one kernel (ncu against
itself too) and are held to tests/gpu/ncu_tolerance.h's rules: within 1 % or
0.1 per shared instruction; DRAM read within 2 % or 64 KiB, written within 2 %
or 2 MiB.  Last line: the summary bench/program-vs-ncu.sh prints."""
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
metrics = list(runs[0]["metrics"]) if runs else []


def kind(m):
    """tests/gpu/ncu_tolerance.h's classes, for the counts compared here."""
    if m.startswith("dram__bytes_write"):
        return "dram-write"
    if m.startswith("dram__bytes_read"):
        return "dram-read"
    if "data_bank_conflicts" in m or "wavefronts_mem_shared" in m:
        return "shared"
    if m.endswith(".sum") and "gpu__time" not in m and "per_second" not in m:
        return "count"
    return None


n = {"count": [0, 0], "shared": [0, 0], "dram-read": [0, 0], "dram-write": [0, 0]}
bad = []
for run in tool:
    k = launch_of(run)
    if k not in ncu:
        bad.append(f"launch {k}: ncu has no row")
        continue
    for m in metrics:
        c = kind(m)
        a = run["metrics"][m]["value"]
        b = ncu[k].get(m)
        if c is None or a is None or b is None:
            continue
        diff, mag = abs(a - b), max(abs(a), abs(b))
        rel = diff / mag if mag else 0.0
        if c == "count":
            ok = a == b                                  # exact
        elif c == "shared":
            inst = run["metrics"].get("smsp__inst_executed_op_shared_" +
                                      ("st" if "_op_st" in m else "ld") + ".sum", {}).get("value") or 0
            ok = diff <= 1 or rel <= 0.01 or diff <= 0.1 * inst
        elif c == "dram-read":
            ok = diff <= 65536 or rel <= 0.02
        else:
            ok = diff <= 2 * 1048576 or rel <= 0.02
        n[c][1] += 1
        n[c][0] += ok
        if not ok:
            bad.append(f"launch {k} {run['variant']}: {m} tool {a} ncu {b:.0f}")
for line in bad[:20]:
    print(line)
print(f"tool {len(tool)} launches, ncu {len(ncu)}: counts equal {n['count'][0]}/{n['count'][1]}, "
      f"shared wavefronts+conflicts within tolerance {n['shared'][0]}/{n['shared'][1]}, "
      f"DRAM read {n['dram-read'][0]}/{n['dram-read'][1]}, written {n['dram-write'][0]}/{n['dram-write'][1]}")

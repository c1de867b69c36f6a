#!/usr/bin/env python3
"""dram-write-replay.py COUNTS.txt NCU-KERNEL-1.csv NCU-APP-1.csv — where the
DRAM bytes written by a PyTorch program's launches differ between the tool and
ncu, whether the difference is ncu's replay: COUNTS.txt is
bench/program-vs-ncu.py's output (tool against ncu with the 24 default metrics,
5 passes of kernel replay, so ncu saves and restores device memory between
passes); the two CSVs are ncu with the one metric dram__bytes_write.sum
(one pass: nothing restored), in kernel and in application replay, both
--cache-control all --csv --print-units base.  Prints a table in MB (10^6 B)
and the medians of the differences."""
import csv, io, re, statistics, sys


def ncu_csv(path):
    text = open(path, errors="replace").read()
    start = text.find('"ID"')
    out = {}
    for r in csv.DictReader(io.StringIO(text[start:])) if start >= 0 else []:
        if r.get("Metric Name") == "dram__bytes_write.sum":
            out[int(r["ID"])] = float(r["Metric Value"].replace(",", ""))
    return out


pat = re.compile(r"^launch (\d+) (.*?) #\d+: dram__bytes_write\.sum tool (\d+) ncu (\d+)$")
rows = []
for line in open(sys.argv[1]):
    m = pat.match(line.strip())
    if m:
        rows.append((int(m.group(1)), m.group(2), float(m.group(3)), float(m.group(4))))
k1, a1 = ncu_csv(sys.argv[2]), ncu_csv(sys.argv[3])
mb = lambda x: x / 1e6
print("%-6s %-44s %9s %9s %9s %9s %8s %8s %8s" % (
    "launch", "kernel (short name)", "tool", "ncu24", "ncu1-k", "ncu1-app",
    "ncu24-t", "ncu1k-t", "app-t"))
d24, d1k, d1a = [], [], []
for i, name, t, n24 in rows:
    k, a = k1.get(i), a1.get(i)
    if k is None or a is None:
        continue
    d24.append(n24 - t); d1k.append(k - t); d1a.append(a - t)
    print("%-6d %-44.44s %9.3f %9.3f %9.3f %9.3f %+8.3f %+8.3f %+8.3f" % (
        i, name, mb(t), mb(n24), mb(k), mb(a), mb(n24 - t), mb(k - t), mb(a - t)))
if d24:
    print("launches: %d (those where the tool and ncu with 24 metrics differed)" % len(d24))
    print("median difference from the tool, MB: ncu 24 metrics (kernel replay, 5 passes) %+.3f; "
          "ncu 1 metric, kernel replay (1 pass) %+.3f; ncu 1 metric, application replay %+.3f"
          % (mb(statistics.median(d24)), mb(statistics.median(d1k)), mb(statistics.median(d1a))))

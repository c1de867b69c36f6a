#!/bin/sh
# beside-noise.sh OUT [COMMIT] — does the suite's per-line pass at the defaults move what the
# collection measures, beyond the run-to-run noise?  Written for the tracer beside the
# collection (commits d5f03dc-42456b0), which did (bench/results/beside-noise-2026-11-28-
# 42456b0.txt: DRAM bytes written 4-60 % off, run after run) and was withdrawn; at later
# commits the default pass runs after the collection, and the pairs should differ by noise
# alone.  On the GPU machine
# after `make`: the main job's collection twice with --no-source-lines (no tracer) and twice
# at its defaults (the tracer beside it), alternating; then bench/compare_runs.py on the pairs
# (timings and counters run by run) and the DRAM bytes written of the runs where any two
# differ most.  OUT/summary.txt.
set -u
O=${1:?usage: beside-noise.sh OUT [COMMIT]}
C=${2:-unknown}
GR=./build/gpumem-report
mkdir -p "$O"
{
    echo "# bench/beside-noise.sh: the tracer beside the collection against the run-to-run noise"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# device, driver: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i 0)"
    echo "# commit: $C"
} > "$O/summary.txt"
for k in 1 2; do
    $GR collect --no-source-lines --json "$O/off$k.json" > /dev/null 2> "$O/off$k.err"
    echo "off$k: rc $? $(grep '^time:' "$O/off$k.err")" >> "$O/summary.txt"
    $GR collect --json "$O/on$k.json" > /dev/null 2> "$O/on$k.err"
    echo "on$k: rc $? $(grep '^time:' "$O/on$k.err")" >> "$O/summary.txt"
done
for pair in "off1 off2" "on1 on2" "off1 on1" "off2 on2"; do
    set -- $pair
    python3 bench/compare_runs.py "$O/$1.json" "$O/$2.json" "$2 against $1" >> "$O/summary.txt"
done
python3 - "$O" >> "$O/summary.txt" <<'PY'
import json, sys
o = sys.argv[1]
runs = {}
for n in ("off1", "off2", "on1", "on2"):
    for r in json.load(open("%s/%s.json" % (o, n)))["runs"]:
        m = (r.get("metrics") or {}).get("dram__bytes_write.sum")
        if m:
            k = "%s/%s %s" % (r["experiment"], r["variant"], json.dumps(r["params"], sort_keys=True))
            runs.setdefault(k, {})[n] = m["value"]
rows = []
for k, v in runs.items():
    if len(v) == 4 and min(v.values()) > 1e6:
        rows.append((max(v.values()) / min(v.values()), k, v))
rows.sort(reverse=True)
print("\nDRAM bytes written (MB), the 10 runs whose four values differ most (max/min):")
print("  %-52s %8s %8s %8s %8s" % ("run", "off1", "off2", "on1", "on2"))
for q, k, v in rows[:10]:
    print("  %-52s %8.2f %8.2f %8.2f %8.2f  (x%.2f)" % (k[:52], v["off1"] / 1e6, v["off2"] / 1e6,
                                                      v["on1"] / 1e6, v["on2"] / 1e6, q))
PY
cat "$O/summary.txt"

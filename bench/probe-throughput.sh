#!/bin/sh
# probe-throughput.sh OUT — on the GPU machine, after `make`: the passes the collector needs for
# the L1 and L2 throughput metrics (with the default set, and alone), and their values against
# ncu's on the lab's launches, with ncu's theoretical occupancy beside the achieved one.
set -u
O=${1:?usage: probe-throughput.sh OUT}
mkdir -p "$O"
GR=./build/gpumem-report
LAB=./build/examples/app/lab
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
DEF=$($GR list --metrics | awk '$1 == "*" {print $2}' | paste -sd, -)
EX=l1tex__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed
passes() { python3 -c "import json,sys; print(sys.argv[2], 'passes', json.load(open(sys.argv[1]))['collection'].get('passes'))" "$1" "$2" 2>&1 | tail -n 1; }
$GR collect --no-source-lines --launches each --json "$O/lab-def.json" -- $LAB > "$O/log0" 2>&1
passes "$O/lab-def.json" "default set:"
$GR collect --no-source-lines --launches each --metrics "$DEF,$EX" --json "$O/lab-extra.json" -- $LAB > "$O/log1" 2>&1
tail -n 2 "$O/log1" | cut -c1-300
passes "$O/lab-extra.json" "default set + L1/L2 throughput:"
$GR collect --no-source-lines --launches each --metrics "$EX" --json "$O/lab-ex.json" -- $LAB > "$O/log2" 2>&1
passes "$O/lab-ex.json" "L1/L2 throughput alone:"
"$NCU" --csv --print-units base --cache-control all --clock-control none \
    --metrics "$EX,sm__maximum_warps_per_active_cycle_pct,sm__warps_active.avg.pct_of_peak_sustained_active" \
    $LAB > "$O/ncu.csv" 2> "$O/ncu.err"
python3 - "$O/lab-extra.json" "$O/ncu.csv" <<'PY'
import csv, io, json, sys
runs = json.load(open(sys.argv[1]))["runs"]
t = open(sys.argv[2], errors="replace").read(); s = t.find('"ID"')
rows = list(csv.DictReader(io.StringIO(t[s:]))) if s >= 0 else []
ncu = {}
for r in rows:
    try: ncu.setdefault(int(r["ID"]), {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    except (KeyError, ValueError): pass
names = ["l1tex__throughput.avg.pct_of_peak_sustained_elapsed", "lts__throughput.avg.pct_of_peak_sustained_elapsed",
         "sm__warps_active.avg.pct_of_peak_sustained_active", "sm__maximum_warps_per_active_cycle_pct"]
print("launch, kernel, block, then tool/ncu: L1 throughput %, L2 throughput %, achieved occupancy %, theoretical occupancy % (ncu only)")
for r in runs:
    # --launches each names the launch's index in program order ("... #4"), ncu's ID
    i = int(r["variant"].rsplit("#", 1)[1])
    m = r.get("metrics") or {}
    def v(n):
        x = m.get(n); x = x.get("value") if isinstance(x, dict) else x
        return "-" if x is None else "%.2f" % x
    print(i, r["kernel"].split("(")[0], (r.get("launch") or {}).get("block"),
          *["%s/%s" % (v(n), "%.2f" % ncu[i][n] if n in ncu.get(i, {}) else "-") for n in names])
PY

#!/bin/sh
# probe-extra.sh OUT — on the GPU machine, after `make`: what three questions cost to answer.
#  1. Extra metrics for the memory-hierarchy view (issue 28): theoretical occupancy
#     (sm__maximum_warps_per_active_cycle_pct), L1 and L2 throughput
#     (l1tex__throughput / lts__throughput .avg.pct_of_peak_sustained_elapsed): the passes the
#     collector needs with and without them, and their values against ncu's on the lab's
#     launches (--launches each, one trial).
#  2. nvdisasm: whether the toolkit has it, and its output for one suite cubin (the text format
#     the per-instruction rows of kernels without -lineinfo read).
#  3. GPUMEM_REPORT_JOBS: the main job at its defaults with 1, 4 and 8 per-line children at once
#     (wall time, the per-line pass's seconds, and whether the per-line counts are the same), and
#     the PyTorch example (tracer) with 1 and 4.
set -u
O=${1:?usage: probe-extra.sh OUT}
mkdir -p "$O"
GR=./build/gpumem-report
LAB=./build/examples/app/lab
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
CU=${CUDA_HOME:-/usr/local/cuda}
DEF=$($GR list --metrics | awk '$1 == "*" {print $2}' | paste -sd, -)
EXTRA=sm__maximum_warps_per_active_cycle_pct,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed
tm() { t0=$(date +%s.%N); "$@"; rc=$?; echo "rc $rc $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}') s"; }
passes() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=d['collection']; print('passes', c.get('passes'), 'ranks', len(c.get('ranks') or []))" "$1" 2>&1; }
{
echo "== 1. extra metrics"
echo "default set: $(echo "$DEF" | tr ',' '\n' | wc -l) metrics"
tm $GR collect --no-source-lines --launches each --json "$O/lab-def.json" -- $LAB > "$O/lab-def.log" 2>&1
passes "$O/lab-def.json"
tm $GR collect --no-source-lines --launches each --metrics "$DEF,$EXTRA" --json "$O/lab-extra.json" -- $LAB > "$O/lab-extra.log" 2>&1
passes "$O/lab-extra.json"
tail -n 3 "$O/lab-extra.log"
tm $GR collect --quick --only matvec --no-source-lines --metrics "$DEF,$EXTRA" --json "$O/matvec-extra.json" > "$O/matvec-extra.log" 2>&1
passes "$O/matvec-extra.json"
tm "$NCU" --csv --print-units base --cache-control all --clock-control none --metrics "$EXTRA" $LAB > "$O/lab-ncu.csv" 2> "$O/lab-ncu.err"
python3 bench/program-vs-ncu.py "$O/lab-extra.json" "$O/lab-ncu.csv" 2>&1 | tail -n 40
python3 - "$O/lab-extra.json" "$O/lab-ncu.csv" <<'PY'
import csv, io, json, sys
runs = json.load(open(sys.argv[1]))["runs"]
t = open(sys.argv[2], errors="replace").read(); s = t.find('"ID"')
rows = list(csv.DictReader(io.StringIO(t[s:]))) if s >= 0 else []
ncu = {}
for r in rows:
    try: ncu.setdefault(int(r["ID"]), {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    except (KeyError, ValueError): pass
names = ["sm__maximum_warps_per_active_cycle_pct", "l1tex__throughput.avg.pct_of_peak_sustained_elapsed", "lts__throughput.avg.pct_of_peak_sustained_elapsed"]
print("launch, kernel, then tool/ncu for: theoretical occupancy %, L1 throughput %, L2 throughput %")
for i, r in enumerate(runs):
    m = r.get("metrics") or {}
    def v(n):
        x = m.get(n); x = x.get("value") if isinstance(x, dict) else x
        return "-" if x is None else "%.2f" % x
    print(i, r.get("variant") or r.get("kernel"), *["%s/%s" % (v(n), "%.2f" % ncu[i][n] if n in ncu.get(i, {}) else "-") for n in names])
PY
echo
echo "== 2. nvdisasm"
ls -l "$CU/bin/nvdisasm" "$CU/bin/cuobjdump" 2>&1
command -v nvdisasm cuobjdump
"$CU/bin/nvdisasm" --version 2>&1 | tail -n 2
mkdir -p "$O/cubin"
( cd "$O/cubin" && "$CU/bin/cuobjdump" -xelf all "$OLDPWD/$LAB" > /dev/null 2>&1; ls -l )
c=$(ls "$O/cubin"/*.cubin 2>/dev/null | head -n 1)
if [ -n "$c" ]; then
    "$CU/bin/nvdisasm" -c "$c" > "$O/nvdisasm-c.txt" 2>&1; echo "nvdisasm -c: rc $? $(wc -l < "$O/nvdisasm-c.txt") lines"
    "$CU/bin/nvdisasm" -c -g "$c" > "$O/nvdisasm-cg.txt" 2>&1; echo "nvdisasm -c -g: rc $?"
    "$CU/bin/nvdisasm" -c -hex "$c" > "$O/nvdisasm-hex.txt" 2>&1; echo "nvdisasm -c -hex: rc $?"
    head -n 60 "$O/nvdisasm-c.txt"
fi
"$CU/bin/nvdisasm" --help > "$O/nvdisasm-help.txt" 2>&1
echo
echo "== 3. GPUMEM_REPORT_JOBS"
for j in 1 4 8; do
    mkdir -p "$O/jobs$j"
    echo "main job, JOBS=$j: $(GPUMEM_REPORT_JOBS=$j tm $GR --out "$O/jobs$j/report.md" --json "$O/jobs$j/run.json" > "$O/jobs$j/log" 2>&1; tail -n 1 "$O/jobs$j/log")"
    grep -i 'source lines\|results:' "$O/jobs$j/log" | tail -n 3
done
python3 - "$O"/jobs1/run.json "$O"/jobs4/run.json "$O"/jobs8/run.json <<'PY'
import json, sys
def key(p):
    d = json.load(open(p)); out = {}
    for r in d["runs"]:
        sl = r.get("source_lines")
        if sl: out[(r.get("experiment"), r.get("variant"), json.dumps(r.get("params"), sort_keys=True))] = json.dumps(sl.get("lines"), sort_keys=True)
    return d["collection"].get("source_lines_seconds"), out
base_s, base = key(sys.argv[1])
print("JOBS=1: per-line %s s, %d runs with lines" % (base_s, len(base)))
for p in sys.argv[2:]:
    s, o = key(p)
    same = sum(1 for k in base if o.get(k) == base[k])
    print("%s: per-line %s s, %d runs with lines, %d of %d the same as JOBS=1" % (p.split("/")[-2], s, len(o), same, len(base)))
PY
for j in 1 4; do
    echo "layouts.py default, JOBS=$j: $(GPUMEM_REPORT_JOBS=$j tm $GR collect --json "$O/py$j.json" -- python3 examples/pytorch/layouts.py 2 > "$O/py$j.log" 2>&1)"
    python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['collection']; print(' per-line', c.get('source_lines_seconds'), 's', c.get('source_lines_method'), c.get('source_lines_fallback'))" "$O/py$j.json"
done
} 2>&1 | tee "$O/probe.txt"

#!/bin/sh
# probe-extra.sh OUT — on the GPU machine, after `make`: what three questions cost to answer.
#  1. Extra metrics for the memory-hierarchy view (issue 28): theoretical occupancy
#     (sm__maximum_warps_per_active_cycle_pct), L1 and L2 throughput
#     (l1tex__throughput / lts__throughput .avg.pct_of_peak_sustained_elapsed, through
#     bench/probe-throughput.sh): the passes the collector needs with and without them, and
#     their values against ncu's on the lab's launches (--launches each, one trial).  The run
#     of bench/results/probe-extra-2026-11-27-4c8175d.txt asked for all three in one
#     collection, which CUPTI refused for the first; they are asked apart now.
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
CU=${CUDA_HOME:-/usr/local/cuda}
DEF=$($GR list --metrics | awk '$1 == "*" {print $2}' | paste -sd, -)
tm() { t0=$(date +%s.%N); "$@"; rc=$?; echo "rc $rc $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}') s"; }
{
echo "== 1. extra metrics"
echo "default set: $(echo "$DEF" | tr ',' '\n' | wc -l) metrics"
# theoretical occupancy: CUPTI's range profiler names it or rejects it
tm $GR collect --no-source-lines --launches each --metrics "$DEF,sm__maximum_warps_per_active_cycle_pct" \
    --json "$O/lab-occ.json" -- $LAB > "$O/lab-occ.log" 2>&1
tail -n 3 "$O/lab-occ.log"
# L1 and L2 throughput: their passes, and their values against ncu's
sh bench/probe-throughput.sh "$O/throughput"
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

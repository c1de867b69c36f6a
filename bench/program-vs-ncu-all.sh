#!/bin/sh
# program-vs-ncu-all.sh OUTDIR — the evidence of bench/results/program-vs-ncu-*.txt:
# the example lab program (build/examples/app/lab), the PyTorch program
# examples/pytorch/layouts.py and bench/libraries.py (cuBLAS, cuDNN and other
# library kernels), each plainly, under gpumem-report and under ncu
# (bench/program-vs-ncu.sh), then the suite's collector at the 336
# launches of bench/collector-vs-ncu.sh.  Run after `make` on the GPU machine.
set -u
out=${1:?usage: program-vs-ncu-all.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

sh "$here/program-vs-ncu.sh" "$out" lab build/examples/app/lab 2>&1 | grep -v "^gpumem-report: \[debug\] launch\|profiled launch\|loaded in process\|profiler open"
sh "$here/program-vs-ncu.sh" "$out" pytorch python3 "$here/../examples/pytorch/layouts.py" 2>&1 | grep -v "^gpumem-report: \[debug\] launch\|profiled launch\|loaded in process\|profiler open"
sh "$here/program-vs-ncu.sh" "$out" libraries python3 "$here/libraries.py" 2>&1 | grep -v "^gpumem-report: \[debug\] launch\|profiled launch\|loaded in process\|profiler open"

echo "== the suite's collector, 336 launches (24 x 14), 24 metrics: L2 flush as a range vs none"
for f in evict off; do
    t0=$(date +%s.%N)
    build/tests/gpu/collector_vs_ncu --mode=collect --repeat=24 --flush=$f 2>&1 | tail -n 2
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" -v f="$f" 'BEGIN {printf "collector --flush=%s: %.2f s\n", f, b - a}'
done
# the reports, for examples/app/ and examples/pytorch/ (and the run's counts), in one archive
tar czf "$out/evidence.tgz" -C "$out" lab/report.html lab/report.md lab/report.charts lab/run.json \
    lab/counts.txt lab/plain.out pytorch/report.html pytorch/report.md pytorch/report.charts \
    pytorch/run.json pytorch/counts.txt pytorch/plain.out 2>/dev/null || true

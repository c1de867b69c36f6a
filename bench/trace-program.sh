#!/bin/sh
# trace-program.sh OUT [COMMIT] — per-line counts of a program in one extra run
# (issue 25), on the GPU machine, after `make`: the lab program
# (build/examples/app/lab) and examples/pytorch/layouts.py, each
#   - plainly (the lab three times: the median),
#   - under `gpumem-report collect` with the default options (the counters,
#     then one run in trace mode for every kernel),
#   - with --no-source-lines (the counters alone) and with --source-lines sass
#     (the counters, then one run per kernel under CUPTI's SASS metrics),
#   - under ncu with the same metrics (one trial), and the lab under
#     ncu --section SourceCounters (its Source page, per line);
# the lab once more in trace mode by hand (the raw records file); a quick
# suite run with the default and with --source-lines sass; then
# bench/trace-program.py compares the tracer's lines with the SASS path's and
# ncu's.  Every step under `timeout`, skipped when the deadline (DEADLINE,
# seconds since START, the epoch second the caller began) is near; each step's
# wall time in OUT/steps.txt.  ITER: the PyTorch script's iterations (default 2).
set -u
O=${1:?usage: trace-program.sh OUT [COMMIT]}
C=${2:-unknown}
START=${START:-$(date +%s)}
DEADLINE=${DEADLINE:-200}
ITER=${ITER:-2}
mkdir -p "$O"
GR=./build/gpumem-report
LAB=./build/examples/app/lab
PY="python3 examples/pytorch/layouts.py $ITER"
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
: > "$O/steps.txt"

# step NAME LIMIT CMD...: stdout and stderr to OUT/NAME.{out,err}, the wall time to steps.txt
step() {
    name=$1 lim=$2
    shift 2
    left=$((DEADLINE - ($(date +%s) - START)))
    if [ "$left" -le 5 ]; then
        echo "$name skipped: deadline" >> "$O/steps.txt"
        return
    fi
    [ "$lim" -gt "$left" ] && lim=$left
    t0=$(date +%s.%N)
    timeout "$lim" "$@" > "$O/$name.out" 2> "$O/$name.err"
    rc=$?
    t1=$(date +%s.%N)
    echo "$name rc $rc $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}') s" \
        >> "$O/steps.txt"
}

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "device, driver: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i 0)"
    echo "commit: $C"
    echo "ncu: $($NCU --version | tail -n 1)"
    echo "python3: $(python3 -c 'import torch, sys; print(sys.version.split()[0], "torch", torch.__version__)' 2>&1)"
} > "$O/env.txt"

INJ=$PWD/build/libgpumem-inject.so
# the lab
step lab-plain1 20 $LAB
step lab-plain2 20 $LAB
step lab-plain3 20 $LAB
step lab-raw 40 env CUDA_INJECTION64_PATH="$INJ" GPUMEM_REPORT_TRACE_OUT="$O/lab-trace.txt" $LAB
step lab-default 60 $GR collect --json "$O/lab.json" -- $LAB
step lab-sass 60 $GR collect --source-lines sass --json "$O/lab-sass.json" -- $LAB
step lab-nosl 40 $GR collect --no-source-lines --json "$O/lab-nosl.json" -- $LAB
# PyTorch
step py-plain 60 $PY
step py-default 100 $GR collect --json "$O/py.json" -- $PY
step py-raw 60 env CUDA_INJECTION64_PATH="$INJ" GPUMEM_REPORT_TRACE_OUT="$O/py-trace.txt" $PY
# ncu's Source page of the lab
step lab-ncu-src 60 "$NCU" --section SourceCounters --import-source yes -f -o "$O/lab-src" $LAB
[ -f "$O/lab-src.ncu-rep" ] && "$NCU" -i "$O/lab-src.ncu-rep" --page source --print-source \
    cuda,sass --csv > "$O/lab-src.csv" 2> /dev/null
# the suite: one child for every chosen case
step suite-default 60 $GR collect --quick --only transpose --json "$O/suite.json"
step py-nosl 60 $GR collect --no-source-lines --json "$O/py-nosl.json" -- $PY
metrics() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(','.join(d['collection']['metrics']), len(d['runs']))" "$1"; }
if [ -f "$O/lab-nosl.json" ]; then
    set -- $(metrics "$O/lab-nosl.json")
    step lab-ncu 60 "$NCU" --csv --print-units base --cache-control all --clock-control none \
        --metrics "$1" $LAB
fi
step py-sass 120 $GR collect --source-lines sass --json "$O/py-sass.json" -- $PY
step suite-sass 60 $GR collect --quick --only transpose --source-lines sass \
    --json "$O/suite-sass.json"
if [ -f "$O/py-nosl.json" ]; then
    set -- $(metrics "$O/py-nosl.json")
    step py-ncu 90 "$NCU" --csv --print-units base --cache-control all --clock-control none \
        --metrics "$1" $PY
fi
# reports and the comparison (not timed)
for j in lab py suite; do
    [ -f "$O/$j.json" ] && $GR render "$O/$j.json" --out "$O/$j.md" > /dev/null 2>&1
done
{
    cat "$O/env.txt"
    echo
    cat "$O/steps.txt"
    echo
    [ -f "$O/lab.json" ] && python3 bench/trace-program.py --name lab --trace "$O/lab.json" \
        --sass "$O/lab-sass.json" --ncu "$O/lab-src.csv"
    [ -f "$O/py.json" ] && python3 bench/trace-program.py --name pytorch --trace "$O/py.json" \
        --sass "$O/py-sass.json"
    [ -f "$O/suite.json" ] && python3 bench/trace-program.py --name suite --trace \
        "$O/suite.json" --sass "$O/suite-sass.json"
} > "$O/compare.txt" 2>&1
exit 0

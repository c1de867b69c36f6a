#!/bin/sh
# replay-program.sh OUT [COMMIT] — what a program's per-line pass costs at the defaults, now
# that it makes the launches the counted run kept again instead of running the program again
# (issue 25), on the GPU machine after `make`.  For the lab (build/examples/app/lab) and
# examples/pytorch/layouts.py (9 iterations: 56 launches, NVTX ranges), TRIALS interleaved
# trials (default 3) of
#   - the program alone (plain),
#   - gpumem-report collect at its defaults (counters, then the kept launches traced),
#   - ncu with the tool's metrics, L2 flushed before each launch (--cache-control all);
# and tests/gpu/torch_graphs.py (torch.compile's Triton kernels in a replayed CUDA graph, one
# trial); then once each: the tool with --no-source-lines, and with GPUMEM_REPORT_TRACE_RERUN=1 (the
# tracer in a run of the program of its own, as before), and the lab's ncu Source page; the
# per-line counts of the default compared with the rerun's and ncu's (bench/trace-program.py).
# Medians in OUT/summary.txt; each step's wall time in OUT/steps.txt.  DEADLINE: seconds for
# everything (default 400).
set -u
O=${1:?usage: replay-program.sh OUT [COMMIT]}
C=${2:-unknown}
DL=${DEADLINE:-400}
TRIALS=${TRIALS:-3}
START=$(date +%s)
GR=./build/gpumem-report
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
mkdir -p "$O"
: > "$O/steps.txt"
step() {
    name=$1 lim=$2
    shift 2
    left=$((DL - ($(date +%s) - START)))
    if [ "$left" -le 5 ]; then echo "$name skipped: deadline" >> "$O/steps.txt"; return 1; fi
    [ "$lim" -gt "$left" ] && lim=$left
    t0=$(date +%s.%N)
    timeout "$lim" "$@" > "$O/$name.out" 2> "$O/$name.err"
    rc=$?
    echo "$name rc $rc $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}') s" \
        >> "$O/steps.txt"
}
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "device, driver: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i 0)"
    echo "commit: $C"
    echo "ncu: $($NCU --version | tail -n 1)"
} > "$O/env.txt"
metrics() { python3 -c "import json,sys; print(','.join(json.load(open(sys.argv[1]))['collection']['metrics']))" "$1"; }
prog() {   # NAME TRIALS CMD...: the trials, then the single runs
    n=$1 trials=$2
    shift 2
    "$@" > /dev/null 2>&1   # once untimed: files in the page cache for every side
    step "$n-nosl" 120 $GR collect --no-source-lines --json "$O/$n-nosl.json" -- "$@"
    m=$(metrics "$O/$n-nosl.json" 2>/dev/null || echo "")
    k=1
    while [ "$k" -le "$trials" ]; do
        step "$n-plain-$k" 120 "$@"
        step "$n-default-$k" 200 $GR collect --json "$O/$n-$k.json" -- "$@"
        [ -n "$m" ] && step "$n-ncu-$k" 200 "$NCU" --csv --print-units base --cache-control all \
            --clock-control none --metrics "$m" "$@"
        k=$((k + 1))
    done
    step "$n-rerun" 200 env GPUMEM_REPORT_TRACE_RERUN=1 $GR collect --json "$O/$n-rerun.json" \
        -- "$@"
    # the program's output is its own: the same under the tool
    if cmp -s "$O/$n-plain-1.out" "$O/$n-default-1.out"; then
        echo "$n: the same stdout alone and under the tool" >> "$O/same.txt"
    else
        echo "$n: stdout DIFFERS alone and under the tool" >> "$O/same.txt"
    fi
}
prog lab "$TRIALS" ./build/examples/app/lab
step lab-ncu-src 60 "$NCU" --section SourceCounters --import-source yes -f -o "$O/lab-src" \
    ./build/examples/app/lab
[ -f "$O/lab-src.ncu-rep" ] && "$NCU" -i "$O/lab-src.ncu-rep" --page source --print-source \
    cuda,sass --csv > "$O/lab-src.csv" 2> /dev/null
prog py "$TRIALS" python3 examples/pytorch/layouts.py 9
# torch.compile (Triton kernels) replaying a CUDA graph: one trial
prog tc 1 python3 tests/gpu/torch_graphs.py
# medians, and the time each adds to the plain run
python3 - "$O" > "$O/summary.txt" <<'PY'
import re, statistics, sys
o = sys.argv[1]
t = {}
for line in open(o + "/steps.txt"):
    m = re.match(r"(\w+)-(plain|default|ncu)-\d+ rc (\d+) ([\d.]+) s", line)
    if m:
        t.setdefault((m[1], m[2]), []).append((float(m[4]), int(m[3])))
for p in ("lab", "py", "tc"):
    med = {k: statistics.median(x for x, _ in t.get((p, k), [(float("nan"), 0)]))
           for k in ("plain", "default", "ncu")}
    rcs = {k: sorted({r for _, r in t.get((p, k), [])}) for k in ("plain", "default", "ncu")}
    add_t, add_n = med["default"] - med["plain"], med["ncu"] - med["plain"]
    print("%s: medians of %d: plain %.2f s, tool default %.2f s (+%.2f s, %.0f %% of the plain"
          " run), ncu %.2f s (+%.2f s); the tool adds %.2f of what ncu adds; exit statuses %s" % (
              p, len(t.get((p, "plain"), [])), med["plain"], med["default"], add_t,
              100 * add_t / med["plain"] if med["plain"] > 0 else float("nan"), med["ncu"],
              add_n, add_t / add_n if add_n > 0 else float("nan"), rcs))
PY
{
    cat "$O/env.txt"; echo; cat "$O/steps.txt"; echo; cat "$O/summary.txt"; echo
    [ -f "$O/lab-1.json" ] && python3 bench/trace-program.py --name lab --trace "$O/lab-1.json" \
        --rerun "$O/lab-rerun.json" --ncu "$O/lab-src.csv"
    [ -f "$O/py-1.json" ] && python3 bench/trace-program.py --name pytorch --trace \
        "$O/py-1.json" --rerun "$O/py-rerun.json"
    [ -f "$O/tc-1.json" ] && python3 bench/trace-program.py --name torch.compile --trace \
        "$O/tc-1.json" --rerun "$O/tc-rerun.json"
    cat "$O/same.txt" 2>/dev/null
} > "$O/compare.txt" 2>&1
tail -n 4 "$O/summary.txt"
exit 0

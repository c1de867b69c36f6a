#!/bin/sh
# device-final.sh OUT [DEADLINE] — the GPU evidence of one commit in one bounded call, in the
# order it matters: the build, the main job as a user runs it (defaults: counters, then the
# per-line pass), make test-gpu (every variant validated, the collector, the injection
# library and the tracer against ncu), ten quick collections for the gate's A/A check
# (bench/gate-aa.sh), the theoretical occupancy against ncu's (bench/occupancy-vs-ncu.sh),
# ten collections of each of two programs (bench/programs-aa.sh), the program examples at
# their defaults (examples/app, examples/pytorch), then
# bench/trace-program.sh (programs: per-line counts
# by the tracer against the SASS path and ncu's Source page; plain / default / ncu times)
# with what time is left.  DEADLINE: seconds for everything (default 420).  Each step's exit
# status and wall time in OUT/steps.txt; run from the repository root on the GPU machine.
# SKIP: step names to leave out ("aa programs-aa": the A/A collections).
# Before make test-gpu: bench/replay-program.sh (a program's default per-line pass, timed).
# The device tool brings back 8 files at most: pack OUT (tar) into $OUT afterwards.
set -u
O=${1:?usage: device-final.sh OUT [DEADLINE]}
DL=${2:-420}
START=$(date +%s)
mkdir -p "$O/main"
left() { echo $((DL - ($(date +%s) - START))); }
# step NAME LIMIT CMD...: bounded by LIMIT and by what is left of the deadline
step() {
    name=$1 lim=$2
    shift 2
    case " ${SKIP:-} " in
    *" ${name%%-[0-9]*} "*) echo "$name skipped: SKIP" >> "$O/steps.txt"; return 1 ;;
    esac
    l=$(left)
    if [ "$l" -le 10 ]; then echo "$name skipped: deadline" >> "$O/steps.txt"; return 1; fi
    [ "$lim" -gt "$l" ] && lim=$l
    t0=$(date +%s.%N)
    timeout "$lim" "$@"
    rc=$?
    echo "$name rc $rc $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s" \
        >> "$O/steps.txt"
    return $rc
}
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
    echo "commit: $(cat .commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"
} > "$O/machine.txt"
: > "$O/steps.txt"
C=$(cat .commit 2>/dev/null || echo unknown)
step build 200 make -j16 GIT_COMMIT="$C" GIT_DIRTY=0 > "$O/build.log" 2>&1 || {
    tail -30 "$O/build.log"; exit 1; }
step main 150 ./build/gpumem-report --out "$O/main/report.html" --json "$O/main/run.json" \
    > "$O/main/main.log" 2>&1
tail -n 4 "$O/main/main.log"
# a program's per-line pass from the kept launches (bench/replay-program.sh), its time at the
# defaults against the plain run and ncu
step replay 330 env DEADLINE=320 sh bench/replay-program.sh "$O/replay" "$C" > "$O/replay.log" 2>&1
tail -n 3 "$O/replay/summary.txt" 2>/dev/null
step test-gpu 260 make test-gpu GIT_COMMIT="$C" GIT_DIRTY=0 > "$O/test-gpu.log" 2>&1
tail -n 3 "$O/test-gpu.log"
# A/A: ten collections of the quick suite by one commit (counters and times, no per-line
# pass), for bench/gate-aa.sh to gate each against the others
mkdir -p "$O/aa"
for i in 1 2 3 4 5 6 7 8 9 10; do
    step "aa-$i" 30 ./build/gpumem-report collect --quick --no-source-lines \
        --json "$O/aa/run-$i.json" > "$O/aa/log-$i" 2>&1 || break
done
# theoretical occupancy against ncu's (bench/occupancy-vs-ncu.sh), then ten collections of
# each of two programs for the programs' A/A check (bench/programs-aa.sh)
step occupancy 150 sh bench/occupancy-vs-ncu.sh "$O/occupancy" > "$O/occupancy.log" 2>&1
grep 'launches agree' "$O/occupancy.log"
step programs-aa 150 sh bench/programs-aa.sh "$O/programs" 10 > "$O/programs-aa.log" 2>&1
tail -n 1 "$O/programs-aa.log"
# the two program examples as their READMEs run them (the defaults: counters, then the
# per-line pass by the tracer), for examples/app and examples/pytorch
mkdir -p "$O/examples/app" "$O/examples/pytorch"
step example-app 60 ./build/gpumem-report --out "$O/examples/app/report.html" \
    --json "$O/examples/app/run.json" -- ./build/examples/app/lab \
    > "$O/examples/app/lab.out" 2> "$O/examples/app/log"
step example-pytorch 120 ./build/gpumem-report --out "$O/examples/pytorch/report.html" \
    --json "$O/examples/pytorch/run.json" -- python3 examples/pytorch/layouts.py \
    > "$O/examples/pytorch/layouts.out" 2> "$O/examples/pytorch/log"
l=$(left)
if [ "$l" -gt 40 ]; then
    START=$(date +%s) DEADLINE=$((l - 10)) sh bench/trace-program.sh "$O/trace" "$C" \
        > "$O/trace.log" 2>&1
    tail -n 30 "$O/trace/compare.txt" 2>/dev/null
fi
cat "$O/steps.txt"

#!/bin/sh
# suite-lines.sh OUT [COMMIT] — the suite's per-line pass by each method, at the defaults
# otherwise (issue 25), on the GPU machine after `make`: the main job with --source-lines
# trace (the Compute Sanitizer, GPUMEM_REPORT_JOBS processes, default 1) and with
# --source-lines sass (CUPTI's SASS metrics, a process per layout), each timed by its own
# `time:` line; then every layout's per-line counts of the one against the other
# (bench/trace-program.py: global sectors and their ideal, shared wavefronts and their
# ideal), and the two runs' timings and counters (bench/compare_runs.py: the tracer runs
# beside the collection by default, the SASS children after it).  OUT/summary.txt holds the
# times and the comparisons' summaries.
set -u
O=${1:?usage: suite-lines.sh OUT [COMMIT]}
C=${2:-unknown}
GR=./build/gpumem-report
mkdir -p "$O"
{
    echo "# bench/suite-lines.sh: the suite's per-line pass, trace against sass"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# device, driver: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i 0)"
    echo "# commit: $C"
} > "$O/summary.txt"
for m in trace sass; do
    mkdir -p "$O/$m"
    t0=$(date +%s.%N)
    $GR --out "$O/$m/report.html" --json "$O/$m.json" --source-lines "$m" > "$O/$m.out" 2> "$O/$m.err"
    rc=$?
    echo "$m: rc $rc, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s wall" \
        >> "$O/summary.txt"
    grep -E '^(time:|source lines:)' "$O/$m.err" | sed 's/^/  /' >> "$O/summary.txt"
done
python3 bench/trace-program.py --name suite --trace "$O/trace.json" --sass "$O/sass.json" \
    > "$O/compare.txt" 2>&1
grep -E '^==|SASS path|summary:' "$O/compare.txt" >> "$O/summary.txt"
grep -B1 -E 'DIFF' "$O/compare.txt" | head -40 >> "$O/summary.txt"
# the tracer beside the collection (the default) must not move what the collection measures:
# the trace run's timings and counters against the sass run's (per-line pass after it)
python3 bench/compare_runs.py "$O/sass.json" "$O/trace.json" \
    "the default run (tracer beside) against the --source-lines sass run (after)" \
    >> "$O/summary.txt" 2>&1
cat "$O/summary.txt"

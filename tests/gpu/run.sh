#!/bin/sh
# make test-gpu: run every GPU test program (build/tests/gpu/*) on this machine's GPU.
# Each program prints its own table and exits non-zero on failure.  Usage: run.sh BIN
bin=${1:?usage: run.sh PATH/TO/gpumem-report}
here=$(cd "$(dirname "$0")" && pwd)
sh "$here/gpu-available.sh" || exit 1
dir=$(dirname "$bin")/tests/gpu
pass=0; fail=0; failed=""
for t in "$dir"/*; do
    [ -f "$t" ] && [ -x "$t" ] || continue
    name=$(basename "$t")
    echo "=== $name"
    if GM_BIN="$bin" "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); failed="$failed $name"; fi
done
# The suite with --source-lines trace: per-line counts by the tracer in
# GPUMEM_REPORT_JOBS children, the layouts dealt among them (cli/cmd_trace.c),
# no fallback to the SASS path but the recount of a layout the tracer did not see
# whole (its traced global sectors short of its counters), every run counted.
echo "=== suite_trace"
tmp=$(mktemp -d)
if [ -f "$(dirname "$bin")/libgpumem-trace.so" ]; then
    if "$bin" collect --quick --source-lines trace --json "$tmp/q.json" > "$tmp/log" 2>&1 &&
        grep -q '"source_lines_method": "trace"' "$tmp/q.json" &&
        { ! grep -q '"source_lines_fallback"' "$tmp/q.json" ||
          grep -q '"source_lines_fallback": "[0-9]* layouts* counted again' "$tmp/q.json"; } &&
        ! grep -q 'per-line counts:\|per-source-line pass failed' "$tmp/log"; then
        echo "ok   the quick suite's per-line counts by --source-lines trace came from the tracer, $(grep -c '"status": "collected"' "$tmp/q.json") runs counted"
        pass=$((pass + 1))
    else
        cat "$tmp/log"; grep '"source_lines_fallback"' "$tmp/q.json"
        echo "FAIL the quick suite's per-line counts by --source-lines trace did not all come from the tracer"
        fail=$((fail + 1)); failed="$failed suite_trace"
    fi
else
    echo "SKIP: suite_trace: no libgpumem-trace.so (no Compute Sanitizer API in the toolkit)"
fi
rm -rf "$tmp"
if [ -f "$here/trace_vs_ncu.cu" ] && [ ! -x "$dir/trace_vs_ncu" ]; then
    echo "SKIP: trace_vs_ncu: not built (no Compute Sanitizer API in the toolkit: make says why)"
fi
[ -n "$failed" ] && echo "failed:$failed"
echo "gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

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
if [ -f "$here/trace_vs_ncu.cu" ] && [ ! -x "$dir/trace_vs_ncu" ]; then
    echo "SKIP: trace_vs_ncu: not built (no Compute Sanitizer API in the toolkit: make says why)"
fi
[ -n "$failed" ] && echo "failed:$failed"
echo "gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

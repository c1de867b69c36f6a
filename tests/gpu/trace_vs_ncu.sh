#!/bin/sh
# trace_vs_ncu.sh OUT — the tracer (collectors/gmc_trace.h) against Nsight Compute
# on a GPU machine, in one batch:
#   1. build build/tests/gpu/trace_vs_ncu (collectors and core only, not the suite);
#   2. run it: trace every test kernel (two passes), time untraced launches before
#      patching, patched but disabled, traced and after unpatching; records to OUT;
#   3. run it with 16 shards and with each cost probe (the traced cost), with --counters:
#      a traced pass, the tracer detached, CUPTI range-profiler counters of untraced
#      launches unpatched and patched, the tracer attached again, a second pass; and
#      with the profiler first (open, or opened and closed), then the tracer;
#   4. ncu --section SourceCounters on the same kernels (--plain: no tracer), export
#      the Source page, and compare line by line (tests/gpu/trace_vs_ncu.py).
# Prints the comparison; everything else lands in OUT.  Exit status: 1 when a
# step failed or a count differs.  Run from the repository root (NCU=path to use
# another ncu; BUILD=dir for another build folder).
out=${1:?usage: trace_vs_ncu.sh OUT}
b=${BUILD:-build}
ncu=${NCU:-ncu}
command -v "$ncu" >/dev/null 2>&1 || ncu=/usr/local/cuda/bin/ncu
mkdir -p "$out"
rc=0
make -j16 "$b/tests/gpu/trace_vs_ncu" > "$out/build.txt" 2>&1 || { tail -40 "$out/build.txt"; exit 2; }
grep -i "warning" "$out/build.txt" && echo "(build warnings above)"
{
    date -u +%Y-%m-%dT%H:%M:%SZ
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    "$ncu" --version | tail -1
} > "$out/device.txt" 2>&1
cat "$out/device.txt"

echo "== traced run"
timeout 240 "$b/tests/gpu/trace_vs_ncu" --records "$out/records.tsv" > "$out/trace.txt" 2>&1
r=$?; cat "$out/trace.txt"; echo "trace_vs_ncu: exit $r"; [ $r = 0 ] || rc=1

echo "== the traced cost: 16 shards; without the rules; without the table"
for opt in "--shards 16" "--probe 1" "--probe 2"; do
    timeout 240 "$b/tests/gpu/trace_vs_ncu" $opt > "$out/trace-$(echo $opt | tr -d ' -').txt" 2>&1
    r=$?; grep "^T	traced\|^shards\|^ok\|^FAIL" "$out/trace-$(echo $opt | tr -d ' -').txt"
    echo "trace_vs_ncu $opt: exit $r"
done

echo "== the tracer and the range profiler in one process"
timeout 180 "$b/tests/gpu/trace_vs_ncu" --counters > "$out/counters.txt" 2>&1
r=$?; cat "$out/counters.txt"; echo "trace_vs_ncu --counters: exit $r"; [ $r = 0 ] || rc=1
for mode in profiler-first profiler-closed-first; do
    timeout 120 "$b/tests/gpu/trace_vs_ncu" --$mode > "$out/$mode.txt" 2>&1
    r=$?; grep -v "^C	profiler first" "$out/$mode.txt"; echo "trace_vs_ncu --$mode: exit $r"
done

echo "== ncu"
timeout 300 "$ncu" --section SourceCounters --import-source yes -f -o "$out/rep" \
    "$b/tests/gpu/trace_vs_ncu" --plain > "$out/ncu.txt" 2>&1
r=$?; tail -3 "$out/ncu.txt"; [ $r = 0 ] || { echo "ncu: exit $r"; exit 1; }
"$ncu" -i "$out/rep.ncu-rep" --page source --print-source cuda,sass --csv > "$out/source.csv" \
    2> "$out/export.err" || { echo "ncu export failed"; cat "$out/export.err"; exit 1; }
[ -s "$out/records.tsv" ] || { echo "no records to compare"; exit 1; }
python3 "$(dirname "$0")/trace_vs_ncu.py" --records "$out/records.tsv" --ncu "$out/source.csv" \
    > "$out/compare.txt" 2>&1
r=$?; cat "$out/compare.txt"; [ $r = 0 ] || rc=1
exit $rc

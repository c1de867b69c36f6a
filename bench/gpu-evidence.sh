#!/bin/sh
# gpu-evidence.sh — everything this project claims about the GPU, produced in one
# go on a GPU machine from a clean checkout, into OUTDIR:
#
#   OUTDIR/h100/       the main job: run.json, report.html, report.md + charts,
#                      main.log with its wall time (collect + render)
#   OUTDIR/diff/       a pair of runs that differ by a real code change (the
#                      transpose's padded tile built without its padding), and
#                      the diff between them (Markdown + HTML + exit code)
#   OUTDIR/test-gpu.log  make test-gpu: every variant validated at both size sets,
#                      the collector checked against ncu
#   OUTDIR/collector-vs-ncu.txt  wall time in-process vs ncu on 14 x REPEAT launches
#
#   bench/gpu-evidence.sh OUTDIR [REPEAT]
#
# Run from the repository root after `make`.  Each step is bounded by `timeout`
# so a slow step cannot eat the next one's evidence.
set -u
out=${1:?usage: gpu-evidence.sh OUTDIR [REPEAT]}
repeat=${2:-24}
bin=./build/gpumem-report
mkdir -p "$out/h100" "$out/diff"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%.1f", b - a}'; }

{
    echo "date:   $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem \
        --format=csv,noheader 2>/dev/null | sed 's/^/device: /'
    echo "tool:   $($bin --version)"
} >"$out/machine.txt"

# 1. The main job, as a user runs it: every experiment, every metric.
t0=$(now)
timeout 300 $bin --out "$out/h100/report.html" --json "$out/h100/run.json" >"$out/h100/main.log" 2>&1
rc=$?
echo "gpumem-report --out report.html: exit $rc, wall $(since "$t0") s (collect + render)" \
    >>"$out/h100/main.log"
$bin render "$out/h100/run.json" --out "$out/h100/report.md" >>"$out/h100/main.log" 2>&1
tail -n 3 "$out/h100/main.log"

# 2. A real code change and the diff it produces.
timeout 60 $bin collect --only transpose,banks --json "$out/diff/base.json" --quiet \
    >"$out/diff/log" 2>&1
keep=$(mktemp)
cp kernels/transpose/kernels.cu "$keep"
sed -i 's/transpose_tile_body<1>(in, out, n);/transpose_tile_body<0>(in, out, n);/' \
    kernels/transpose/kernels.cu
timeout 180 make -j16 GIT_DIRTY=1 >>"$out/diff/log" 2>&1
timeout 60 $bin collect --only transpose,banks --json "$out/diff/head.json" --quiet \
    >>"$out/diff/log" 2>&1
$bin diff "$out/diff/base.json" "$out/diff/head.json" --out "$out/diff/diff.md" >>"$out/diff/log" 2>&1
echo "diff exit: $?" >>"$out/diff/log"
$bin diff "$out/diff/base.json" "$out/diff/head.json" --out "$out/diff/diff.html" >/dev/null 2>&1
cp "$keep" kernels/transpose/kernels.cu && rm -f "$keep"
timeout 180 make -j16 >>"$out/diff/log" 2>&1
tail -n 2 "$out/diff/log"

# 3. The GPU tests.
timeout 240 make test-gpu >"$out/test-gpu.log" 2>&1
tail -n 2 "$out/test-gpu.log"

# 4. In-process collector against ncu on the same launches.
timeout 200 sh bench/collector-vs-ncu.sh build/tests/gpu/collector_vs_ncu "$repeat" 1 \
    >"$out/collector-vs-ncu.txt" 2>&1
tail -n 1 "$out/collector-vs-ncu.txt"

#!/bin/bash
# graphs_device.sh OUT — issue 26 on a machine with two GPUs, in one go: CUDA
# graphs and collectives under `gpumem-report -- PROGRAM`, against ncu.
#
#   GPU 0: tests/gpu/graph_app alone, under the tool (--launches each), under
#          `ncu --graph-profiling node` with the same metrics; then
#          tests/gpu/torch_graphs.py under the tool
#   GPU 1: tests/gpu/torch_graphs.py under ncu, then alone
#   both:  tests/gpu/ddp_allreduce.py, two ranks under torchrun, each rank under
#          the tool; the two results merged and rendered
#   then   tests/gpu/graphs_vs_ncu.py on each pair, and a table of the wall times
#
# With NO_NCU=1 the ncu runs are left out (compare with an earlier run's CSVs).
# Every program runs under `timeout`: a hang shows as status 124.  Everything
# lands in OUT (logs/ and one tarball).  Run from the repository root after
# `source .deps/use-deps` where the report's libraries are not installed.
out=${1:?usage: graphs_device.sh OUT}
L=$out/logs
mkdir -p "$L"
# NVLink multicast stays off (the machines' rule), and inductor compiles in-process
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export TORCHINDUCTOR_CACHE_DIR=/tmp/gm-inductor TORCHINDUCTOR_COMPILE_THREADS=1
export PYTHONUNBUFFERED=1
t0=$(date +%s.%N)
now() { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }'; }
{
    date -u +%Y-%m-%dT%H:%M:%SZ
    nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
    /usr/local/cuda/bin/ncu --version | tail -1
    python3 -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())'
} > "$L/device.txt" 2>&1
cat "$L/device.txt"
make -j16 build/gpumem-report build/libgpumem-inject.so build/tests/gpu/graph_app \
    > "$L/build.txt" 2>&1 || { tail -30 "$L/build.txt"; exit 2; }
echo "built at $(now) s"
BIN=$PWD/build/gpumem-report
NCU=/usr/local/cuda/bin/ncu
M=$($BIN list --metrics | awk '$1 == "*" {print $2}' | paste -sd, -)
quiet() { grep -v -e 'debug: runtime' -e 'debug: driver enter'; }
# wall SECONDS LOG CMD...: run with a timeout, log the status and the wall time
wall() {
    local limit=$1 name=$2; shift 2
    local a=$(date +%s.%N)
    timeout "$limit" "$@"
    local rc=$?
    awk -v n="$name" -v rc=$rc -v a="$a" -v b="$(date +%s.%N)" \
        'BEGIN { printf "%-30s exit %3d  %6.1f s\n", n, rc, b - a }' >> "$L/walls.txt"
    return $rc
}

(
    export CUDA_VISIBLE_DEVICES=0
    wall 30 "graph_app alone" build/tests/gpu/graph_app > "$L/ga-plain.out" 2>&1
    wall 60 "graph_app under the tool" env GPUMEM_REPORT_DEBUG=1 $BIN collect --launches each \
        --no-source-lines --json "$L/ga.json" -- build/tests/gpu/graph_app \
        > "$L/ga-tool.out" 2> >(quiet > "$L/ga-tool.err")
    [ -z "$NO_NCU" ] && wall 60 "graph_app under ncu" $NCU --csv --print-units base --cache-control all \
        --clock-control none --graph-profiling node --metrics "$M" build/tests/gpu/graph_app \
        > "$L/ga-ncu.csv" 2>&1
    wall 150 "torch_graphs under the tool" env GPUMEM_REPORT_DEBUG=1 $BIN collect --launches each \
        --no-source-lines --json "$L/tg.json" -- python3 tests/gpu/torch_graphs.py \
        > "$L/tg-tool.out" 2> >(quiet > "$L/tg-tool.err")
) &
(
    export CUDA_VISIBLE_DEVICES=1
    [ -z "$NO_NCU" ] && wall 150 "torch_graphs under ncu" $NCU --csv --print-units base --cache-control all \
        --clock-control none --graph-profiling node --metrics "$M" \
        python3 tests/gpu/torch_graphs.py > "$L/tg-ncu.csv" 2>&1
    wall 60 "torch_graphs alone" python3 tests/gpu/torch_graphs.py > "$L/tg-plain.out" 2>&1
) &
wait
echo "single-GPU runs done at $(now) s"

mkdir -p "$out/ddp"
wall 60 "torchrun 2 ranks, alone" torchrun --standalone --nproc-per-node 2 \
    tests/gpu/ddp_allreduce.py > "$L/ddp-plain.out" 2> "$L/ddp-plain.err"
# the old behaviour, for the record: replays restore memory the other rank writes into
wall 60 "torchrun, replaying shared" env GPUMEM_REPORT_REPLAY_SHARED=1 torchrun --standalone \
    --nproc-per-node 2 --no-python $BIN collect --quiet --no-source-lines --json "$L/rs-%r.json" \
    -- python3 tests/gpu/ddp_allreduce.py > "$L/ddp-shared.out" 2> "$L/ddp-shared.err"
wall 100 "torchrun 2 ranks, tool" env GPUMEM_REPORT_DEBUG=1 torchrun --standalone --nproc-per-node 2 \
    --no-python $BIN --no-source-lines --json "$out/ddp/r-%r.json" --out "$out/ddp/r-%r.md" \
    -- python3 tests/gpu/ddp_allreduce.py > "$L/ddp-tool.out" 2> >(quiet > "$L/ddp-tool.err")
if [ -s "$out/ddp/r-0.json" ] && [ -s "$out/ddp/r-1.json" ]; then
    $BIN merge "$out/ddp/r-0.json" "$out/ddp/r-1.json" --json "$out/ddp/ranks.json" \
        > "$L/merge.txt" 2>&1
    $BIN render "$out/ddp/ranks.json" --out "$out/ddp/ranks.md" >> "$L/merge.txt" 2>&1
    $BIN render "$out/ddp/ranks.json" --out "$out/ddp/ranks.html" >> "$L/merge.txt" 2>&1
fi
echo "ranks done at $(now) s"

{
    echo "== wall times"; cat "$L/walls.txt"
    echo "== outputs with and without the tool"
    cmp "$L/ga-plain.out" "$L/ga-tool.out" && echo "graph_app: same stdout"; tail -1 "$L/ga-tool.out"
    cmp "$L/tg-plain.out" "$L/tg-tool.out" && echo "torch_graphs: same stdout"; tail -1 "$L/tg-tool.out"
    echo "ranks alone:"; grep -h "^rank" "$L/ddp-plain.out" | sort
    echo "ranks under the tool:"; grep -h "^rank" "$L/ddp-tool.out" | sort
    echo "ranks under the tool, replaying after memory was shared:"
    grep -h "^rank" "$L/ddp-shared.out" | sort
    echo "== against ncu"
    [ -s "$L/ga-ncu.csv" ] && python3 tests/gpu/graphs_vs_ncu.py "$L/ga.json" "$L/ga-ncu.csv" graph_app
    [ -s "$L/tg-ncu.csv" ] && python3 tests/gpu/graphs_vs_ncu.py "$L/tg.json" "$L/tg-ncu.csv" torch_graphs
    echo "== the tool's lines"
    grep -h -e "^results" -e "^profiling" -e "gpumem-report:" "$L/ga-tool.err" "$L/tg-tool.err" \
        "$L/ddp-tool.err" | grep -v "debug:" | cut -c1-400
    echo "== the ranks' report, top"
    [ -s "$out/ddp/ranks.md" ] && grep -m3 -e "Not fully counted" -e "^[0-9]*\. \*\*" "$out/ddp/ranks.md" | cut -c1-700
} > "$L/summary.txt" 2>&1
cat "$L/summary.txt"
tar czf "$out/graphs.tar.gz" -C "$out" logs ddp

#!/bin/sh
# dram-write-replay.sh OUTDIR — the evidence of bench/results/dram-write-replay-*.txt:
# is the DRAM-write difference between the tool and ncu on the PyTorch example
# ncu's own multi-pass replay?  Runs bench/program-vs-ncu.sh on
# examples/pytorch/layouts.py (tool against ncu with the 24 default metrics),
# then ncu with dram__bytes_write.sum alone (one pass) in kernel and in
# application replay, and joins the three (bench/dram-write-replay.py).
# Run after `make` on the GPU machine.
set -eu
out=${1:?usage: dram-write-replay.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
ncu=${NCU:-/usr/local/cuda/bin/ncu}
prog="$here/../examples/pytorch/layouts.py"
mkdir -p "$out"
sh "$here/program-vs-ncu.sh" "$out" pytorch python3 "$prog" >"$out/program-vs-ncu.log" 2>&1
for m in kernel application; do
    "$ncu" --metrics dram__bytes_write.sum --cache-control all \
        --replay-mode "$m" --csv python3 "$prog" >"$out/ncu1-$m.csv" 2>"$out/ncu1-$m.err"
done
python3 "$here/dram-write-replay.py" "$out/pytorch/counts.txt" "$out/ncu1-kernel.csv" \
    "$out/ncu1-application.csv"

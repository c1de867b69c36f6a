#!/bin/sh
# run.sh OUT — build and run the SASS-metrics probe (modes A-E, each a fresh
# process) and ncu's Source page on the same kernels; everything in OUT/probe.tgz.
set -u
O=${1:-out}
W=$O/w
mkdir -p "$W"
D=$(dirname "$0")
C=${CUDA_HOME:-/usr/local/cuda}
$C/bin/nvcc -std=c++17 -arch=sm_90 -O3 -lineinfo -c "$D/kernels.cu" -o "$W/k.o" || exit 1
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -I$C/include -c "$D/probe.c" -o "$W/p.o" || exit 1
$C/bin/nvcc -arch=sm_90 "$W/k.o" "$W/p.o" -o "$W/probe" -L$C/lib64 -lcupti -lcuda || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$W/device.txt"
for m in ${MODES:-A B C D E}; do
  ( time "$W/probe" sass "$W" $m ) > "$W/probe-$m.txt" 2>&1
  echo "mode $m rc $?"
done
if [ "${NCU:-1}" = 1 ]; then
  $C/bin/ncu --section SourceCounters --import-source yes -f -o "$W/rep" "$W/probe" plain > "$W/ncu-run.txt" 2>&1
  $C/bin/ncu -i "$W/rep.ncu-rep" --page source --print-source cuda,sass --csv > "$W/ncu-source-cuda-sass.csv" 2> "$W/ncu-export.err"
  $C/bin/ncu -i "$W/rep.ncu-rep" --page source --print-source cuda --csv > "$W/ncu-source-cuda.csv" 2>> "$W/ncu-export.err"
fi
rm -f "$W/k.o" "$W/p.o" "$W/probe" "$W"/*.cubin
tar czf "$O/probe.tgz" -C "$W" . && rm -rf "$W"

#!/bin/sh
# flush-probe.sh — build bench/flush-probe.cu and run it plainly (host time of
# each candidate) and under ncu with application replay and no cache control,
# so that nothing but the program touches the L2 between its kernels.  Prints,
# per case, the DRAM bytes of the second read of A.
#   bench/flush-probe.sh    (on the GPU machine; NCU: path of ncu)
set -eu
ncu=${NCU:-/usr/local/cuda/bin/ncu}
mkdir -p build/bench
nvcc -O2 -arch=native -o build/bench/flush-probe bench/flush-probe.cu
echo "date:   $(date -u +%Y-%m-%dT%H:%M:%SZ)"
command -v nvidia-smi >/dev/null && echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i 0)"
echo "ncu:    $("$ncu" --version | tail -n 1)"
build/bench/flush-probe
"$ncu" --csv --print-units base --replay-mode application --cache-control none \
    --clock-control none --metrics dram__bytes_read.sum,dram__bytes_write.sum \
    build/bench/flush-probe >/tmp/flush-probe.csv 2>&1
# Kernels per case: marker, warm read, [candidate kernel], second read.
python3 - /tmp/flush-probe.csv <<'PY'
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
head, rows = rows[0], rows[1:]
ki, mi, vi = head.index('Kernel Name'), head.index('Metric Name'), head.index('Metric Value')
ids = {}
for r in rows:
    ids.setdefault(int(r[0]), [r[ki], {}])[1][r[mi]] = float(r[vi].replace(',', ''))
case, last = -1, {}
for i in sorted(ids):
    name, m = ids[i]
    if name.startswith('case_marker'):
        case += 1
    last[case] = m
print('%-4s %22s %22s' % ('case', 'A again: DRAM read MB', 'DRAM written MB'))
for c in sorted(last):
    m = last[c]
    print('%-4d %22.1f %22.1f' % (c, m['dram__bytes_read.sum'] / 2**20, m['dram__bytes_write.sum'] / 2**20))
PY

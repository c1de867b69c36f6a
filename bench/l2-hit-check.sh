#!/bin/sh
# l2-hit-check.sh — does ncu also read an L2 hit rate above 100 % on the chain-DP
# kernels where the collector did?  Same metrics, same cache setting, the same
# launches (the validation launches of dp/diagonal and dp/rowmajor at --quick sizes).
#   bench/l2-hit-check.sh   (after make, on the GPU machine)
m=lts__t_sector_hit_rate.pct,lts__t_sectors.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum
echo "== collector (gpumem-report collect --only dp --quick --metrics ...)"
./build/gpumem-report collect --only dp --quick --repeat 1 --warmup 0 --metrics "$m" \
    --json /tmp/l2check.json --quiet
python3 - <<'PY'
import json
r = json.load(open('/tmp/l2check.json'))
for run in r['runs']:
    if not run['metrics']:
        continue
    v = {k.split('.')[0].replace('lts__t_', ''): x['value'] for k, x in run['metrics'].items()}
    print(run['variant'], run['params'], v)
PY
echo "== ncu --cache-control all --clock-control none"
/usr/local/cuda/bin/ncu --csv --print-units base --cache-control all --clock-control none \
    -k regex:dp_kernel --metrics "$m" build/tests/gpu/suite_validate --only dp --quick --no-time \
    2>&1 | grep -E '^"' | awk -F'","' '{print $5, $(NF-2), $NF}'

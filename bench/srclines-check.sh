#!/bin/sh
# srclines-check.sh OUT [COMMIT] — on the GPU machine: build, run the suite and
# the lab program with per-source-line counters (the default), compare them
# with ncu's Source page (bench/srclines-vs-ncu.py), and leave everything in
# OUT (logs, results files, reports, the comparison).  Issue 14.
set -u
O=${1:?usage: srclines-check.sh OUT [COMMIT]}
C=${2:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
mkdir -p "$O"
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
make -j16 GIT_COMMIT="$C" GIT_DIRTY=0 > "$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 1; }
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "device, driver: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
  echo "commit: $C"
  echo "ncu: $($NCU --version | tail -1)"
} > "$O/env.txt"
t0=$(date +%s%N)
./build/gpumem-report --out "$O/report.html" --json "$O/run.json" > "$O/suite.log" 2>&1
echo "suite rc $? in $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$O/env.txt"
./build/gpumem-report render "$O/run.json" --out "$O/report.md" >> "$O/suite.log" 2>&1
t0=$(date +%s%N)
./build/gpumem-report --out "$O/lab.html" --json "$O/lab.json" -- build/examples/app/lab > "$O/lab.out" 2> "$O/lab.log"
echo "lab rc $? in $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$O/env.txt"
./build/gpumem-report render "$O/lab.json" --out "$O/lab.md" >> "$O/lab.log" 2>&1
python3 bench/srclines-vs-ncu.py --bin ./build/gpumem-report --run "$O/run.json" \
    --lab-json "$O/lab.json" --lab build/examples/app/lab --work "$O/ncu" --ncu "$NCU" \
    > "$O/compare.txt" 2> "$O/compare.err"
echo "compare rc $?" | tee -a "$O/env.txt"
# recorded per-instruction data for the CPU tests (tests/fixtures/sass-records-*.txt)
python3 - "$O/run.json" > "$O/fixture-cases.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for exp, var in (("transpose", "tiled"), ("rgb", "interleaved")):
    for x in r["runs"]:
        sl = x.get("source_lines")
        if x["experiment"] == exp and x["variant"] == var and sl:
            print(exp, var, " ".join("%s=%s" % kv for kv in x["params"].items()))
            break
PY
while read -r e v p; do
  ./build/gpumem-report sass-child "$e" "$v" $p > "$O/records-$e-$v.txt" 2>> "$O/suite.log"
done < "$O/fixture-cases.txt"

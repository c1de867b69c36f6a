#!/bin/sh
# suite-spmv-2026-11-22-run.sh — the GPU run behind bench/results/suite-spmv-2026-11-22*:
# build, validate and time experiment 11 (quick and full sizes), collect it with
# the report's counters and again with L2/L1 throughput counters, run the
# gather-ceiling benchmark, and dump the kernels' SASS.  From the repository
# root on the H100 machine:
#   source .deps/use-deps; sh bench/results/suite-spmv-2026-11-22-run.sh OUTDIR
set -u
out=${1:?usage: suite-spmv-2026-11-22-run.sh OUTDIR}
log=$out/log.txt
{
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
    date -u
    nvcc --version | tail -1
} > "$log" 2>&1
make -j16 build/gpumem-report build/tests/gpu/suite_validate >> "$log" 2>&1 || {
    tail -40 "$log"
    exit 1
}
t0=$(date +%s.%N)
build/tests/gpu/suite_validate --only spmv > "$out/validate.txt" 2>&1
rc=$?
wall=$(awk "BEGIN { print $(date +%s.%N) - $t0 }")
echo "suite_validate --only spmv: exit $rc, wall $wall s" >> "$out/validate.txt"
build/gpumem-report collect --only spmv --json "$out/spmv.json" >> "$log" 2>&1
extra=gpu__time_duration.sum,dram__bytes_read.sum
extra=$extra,dram__throughput.avg.pct_of_peak_sustained_elapsed
extra=$extra,lts__t_sectors_srcunit_tex_op_read.sum
extra=$extra,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
extra=$extra,lts__t_sectors.avg.pct_of_peak_sustained_elapsed
extra=$extra,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed
extra=$extra,lts__throughput.avg.pct_of_peak_sustained_elapsed
extra=$extra,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
extra=$extra,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
extra=$extra,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
extra=$extra,l1tex__m_xbar2l1tex_read_sectors.sum
extra=$extra,l1tex__lsu_writeback_active.avg.pct_of_peak_sustained_elapsed
extra=$extra,sm__warps_active.avg.pct_of_peak_sustained_active
build/gpumem-report collect --only spmv --metrics "$extra" --json "$out/spmv-l2.json" \
    >> "$log" 2>&1
nvcc -O3 -arch=sm_90 -o /tmp/gather bench/results/suite-spmv-2026-11-22-gather.cu >> "$log" 2>&1 &&
    /tmp/gather > "$out/gather.txt" 2>&1
cuobjdump -sass build/kernels/exp_spmv.cu.o > "$out/spmv.sass" 2>&1
# the short table: each case, the best, the ceiling, the counters
grep -E '^spmv|best|copy|wall|runs in|passed|failed' "$out/validate.txt"
cat "$out/gather.txt"
python3 - "$out/spmv-l2.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
short = {"gpu__time_duration.sum": "ns", "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram%",
         "lts__t_sectors_srcunit_tex_op_read.sum": "l2rd", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum": "l2hit",
         "lts__t_sectors.avg.pct_of_peak_sustained_elapsed": "l2sec%", "lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed": "l2tag%",
         "lts__throughput.avg.pct_of_peak_sustained_elapsed": "l2%", "l1tex__throughput.avg.pct_of_peak_sustained_elapsed": "l1%",
         "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "l1ldsec", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum": "l1hit",
         "sm__warps_active.avg.pct_of_peak_sustained_active": "occ%"}
for r in d["runs"]:
    m = {k: v.get("value") for k, v in (r.get("metrics") or {}).items()}
    vals = " ".join("%s=%.4g" % (short[k], m[k]) for k in short if isinstance(m.get(k), (int, float)))
    print(r["variant"], r["params"], vals)
EOF

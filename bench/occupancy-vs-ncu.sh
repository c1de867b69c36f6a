#!/bin/sh
# occupancy-vs-ncu.sh OUT — on the GPU machine, after `make`: the theoretical occupancy the
# collector records for each launch (launch.theoretical_occupancy, CUDA's occupancy calculator)
# against ncu's sm__maximum_warps_per_active_cycle_pct on the same launches, for the lab
# (build/examples/app/lab) and examples/pytorch/layouts.py (PyTorch's kernels: other block sizes,
# registers and shared memory).  --launches each: one run per launch, its index in program order
# ("#N" in the variant), which is ncu's ID.  Last line per program: how many launches agree.
set -u
O=${1:?usage: occupancy-vs-ncu.sh OUT}
mkdir -p "$O"
GR=./build/gpumem-report
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
M=sm__maximum_warps_per_active_cycle_pct,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_blocks,launch__occupancy_limit_warps,launch__registers_per_thread,launch__block_size,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic
one() {
    name=$1
    shift
    timeout 120 $GR collect --no-source-lines --launches each --json "$O/$name.json" -- "$@" \
        > "$O/$name.log" 2>&1
    timeout 180 "$NCU" --csv --print-units base --metrics "$M" "$@" > "$O/$name-ncu.csv" \
        2> "$O/$name-ncu.err"
    python3 - "$O/$name.json" "$O/$name-ncu.csv" "$name" <<'PY'
import csv, io, json, sys
runs = json.load(open(sys.argv[1]))["runs"]
t = open(sys.argv[2], errors="replace").read(); s = t.find('"ID"')
ncu, names = {}, {}
for r in (csv.DictReader(io.StringIO(t[s:])) if s >= 0 else []):
    try:
        i = int(r["ID"])
        ncu.setdefault(i, {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        names[i] = r["Kernel Name"]
    except (KeyError, ValueError):
        pass
agree = n = regs_ok = shm_ok = 0
print("%s: launch, kernel, block: tool / ncu theoretical occupancy %%, registers per thread, shared bytes per block" % sys.argv[3])
for r in runs:
    v = r.get("variant") or ""
    if "#" not in v or not r.get("launch"):
        continue
    i = int(v.rsplit("#", 1)[1])
    L = r["launch"]
    tool = L.get("theoretical_occupancy")
    ref = ncu.get(i, {}).get("sm__maximum_warps_per_active_cycle_pct")
    nm = ncu.get(i, {})
    rr = nm.get("launch__registers_per_thread")
    rs = None
    if "launch__shared_mem_per_block_static" in nm:
        rs = nm["launch__shared_mem_per_block_static"] + nm.get("launch__shared_mem_per_block_dynamic", 0)
    n += 1
    ok = tool is not None and ref is not None and abs(tool - ref) < 0.01
    agree += ok
    regs_ok += rr is not None and L.get("registers") == rr
    shm_ok += rs is not None and L.get("shared_bytes") == rs
    print("  %3d %-40.40s %-10s %s / %s  %s / %s  %s / %s%s" % (i, r["kernel"].split("(")[0], "x".join(map(str, L["block"])),
          "-" if tool is None else "%.2f" % tool, "-" if ref is None else "%.2f" % ref,
          L.get("registers"), "-" if rr is None else "%g" % rr, L.get("shared_bytes"), "-" if rs is None else "%g" % rs,
          "" if ok else "   <- occupancy differs"))
print("%s: %d of %d launches agree with ncu on theoretical occupancy, %d on registers, %d on shared bytes" % (sys.argv[3], agree, n, regs_ok, shm_ok))
PY
}
one lab ./build/examples/app/lab
one pytorch python3 examples/pytorch/layouts.py 2

#!/bin/bash
# range-cost.sh — where the suite collector's time goes at the 336 launches of
# bench/collector-vs-ncu.sh: every metric subset with the L2 flush on and off
# (each range costs the same whatever it counts), the process's user and
# system time (the cost is in the kernel driver), and, where strace is on PATH
# (../shared/device/fetch-deps strace), the system calls behind it.
#   bench/range-cost.sh [PROGRAM]    (after make, on the GPU machine)
# PROGRAM: build/tests/gpu/collector_vs_ncu (default)
set -u
P=${1:-build/tests/gpu/collector_vs_ncu}
[ -x "$P" ] || { echo "no program at $P: run make first" >&2; exit 2; }
ALL=$("$P" --mode=metrics)
pick() { printf '%s\n' "$ALL" | tr , '\n' | grep "$@" | paste -sd, -; }
SASS=$(pick '^smsp__sass')                                   # SASS-patched counts
HW=$(pick -v '^smsp__sass')                                  # hardware counters
SENS=$(pick -E '^(dram__|gpu__|lts__|l1tex__t_sector_hit|sm__warps)')  # depend on the cache state
INS=$(pick -v -E '^(dram__|gpu__|lts__|l1tex__t_sector_hit|sm__warps|smsp__sass)')
echo "date:   $(date -u +%Y-%m-%dT%H:%M:%SZ)"
command -v nvidia-smi >/dev/null && echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i 0)"
echo "sets:   SASS = $SASS"
echo "        SENS = $SENS"
echo "        INS  = $INS"
echo "        HW   = SENS + INS; ALL = HW + SASS"
run() {
    name=$1; shift
    /usr/bin/time -f 'time: wall %e s, user %U s, system %S s' \
        "$P" --mode=collect --repeat=24 "$@" >/tmp/range-cost.out 2>&1
    echo "== $name: $(grep -E '^batch' /tmp/range-cost.out | sed 's/^batch 1: //')"
    echo "   $(grep -E '^time:' /tmp/range-cost.out)"
}
for f in evict off; do
    run "ALL  flush $f" --flush=$f
    run "HW   flush $f" --flush=$f --metrics="$HW"
    run "SASS flush $f" --flush=$f --metrics="$SASS"
    run "SENS flush $f" --flush=$f --metrics="$SENS"
    run "INS  flush $f" --flush=$f --metrics="$INS"
done
if command -v strace >/dev/null; then
    for r in 1 24; do
        echo "== strace -f -c, ALL, flush off, --repeat=$r ($((14 * r)) launches, 5 passes)"
        strace -f -c -o /tmp/range-cost.strace "$P" --mode=collect --repeat=$r --flush=off >/dev/null 2>&1
        head -6 /tmp/range-cost.strace
    done
else
    echo "(strace not on PATH: the system-call count is left out)"
fi

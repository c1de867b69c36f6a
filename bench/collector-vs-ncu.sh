#!/bin/sh
# collector-vs-ncu.sh — wall time to profile the same launches with the same
# metrics and the same cache setting (L2 flushed before every profiled
# launch, clocks as found), in-process through the collector vs under Nsight
# Compute.  Whole processes are timed: CUDA start-up, buffer set-up and the
# profiler's own set-up are in both.
#
#   bench/collector-vs-ncu.sh [PROGRAM] [REPEAT] [TRIALS]
#
# PROGRAM  build/tests/gpu/collector_vs_ncu (built by make)
# REPEAT   how many times its 14 reference launches run (default 3: 42 launches)
# TRIALS   runs of each side; the median is reported (default 3)
# NCU      path of ncu (default /usr/local/cuda/bin/ncu)
#
# Prints the device, driver and date, every trial and the median ratio.
set -eu
prog=${1:-build/tests/gpu/collector_vs_ncu}
repeat=${2:-3}
trials=${3:-3}
ncu=${NCU:-/usr/local/cuda/bin/ncu}
[ -x "$prog" ] || { echo "no program at $prog: run make first" >&2; exit 2; }
[ -x "$ncu" ] || ncu=$(command -v ncu) || { echo "ncu not found: set NCU" >&2; exit 2; }
metrics=$("$prog" --mode=metrics)
n_metrics=$(printf '%s\n' "$metrics" | tr ',' '\n' | wc -l)
launches=$((14 * repeat))

now() { date +%s.%N; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
if command -v nvidia-smi >/dev/null 2>&1; then
    echo "device:  $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem \
        --format=csv,noheader -i 0 2>/dev/null | sed 's/, / | /g') (name | driver | SM clock | max SM clock | memory clock)"
fi
echo "ncu:     $("$ncu" --version | tail -n 1)"
echo "work:    $launches launches ($repeat x 14 reference kernels), $n_metrics metrics"
echo "setting: L2 flushed before each profiled launch (collector flush_l2, ncu --cache-control all);"
echo "         clocks as found (ncu --clock-control none; CUPTI 13.0 cannot lock clocks)"
echo

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-6s %12s %12s %12s %8s\n' trial "plain s" "collector s" "ncu s" ratio
i=1
while [ "$i" -le "$trials" ]; do
    t0=$(now); "$prog" --mode=plain --repeat="$repeat" >/dev/null; t1=$(now)
    "$prog" --mode=collect --repeat="$repeat" >"$tmp/collect.$i"; t2=$(now)
    "$ncu" --csv --print-units base --cache-control all --clock-control none --metrics "$metrics" \
        "$prog" --mode=plain --repeat="$repeat" >"$tmp/ncu.$i" 2>&1; t3=$(now)
    plain=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
    coll=$(awk -v a="$t1" -v b="$t2" 'BEGIN {printf "%.3f", b - a}')
    ncus=$(awk -v a="$t2" -v b="$t3" 'BEGIN {printf "%.3f", b - a}')
    ratio=$(awk -v c="$coll" -v n="$ncus" 'BEGIN {printf "%.1f", n / c}')
    printf '%-6s %12s %12s %12s %7sx\n' "$i" "$plain" "$coll" "$ncus" "$ratio"
    echo "$coll" >>"$tmp/coll"; echo "$ncus" >>"$tmp/ncu"; echo "$ratio" >>"$tmp/ratio"
    profiled=$(grep -c '"gpu__time_duration.sum"' "$tmp/ncu.$i" || true)
    [ "$profiled" -eq "$launches" ] || echo "       (ncu profiled $profiled kernels, expected $launches)"
    i=$((i + 1))
done
echo
echo "collector breakdown (last trial): $(cat "$tmp/collect.$trials")"
mc=$(median <"$tmp/coll"); mn=$(median <"$tmp/ncu"); mr=$(median <"$tmp/ratio")
echo "median: collector $mc s, ncu $mn s: ncu takes ${mr}x as long"

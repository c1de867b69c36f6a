#!/bin/sh
# bench/trace-cost.sh — CPU time of the whole suite's address traces at the
# full size, against the budget of 5,000 ms (bench/trace-cost.c says why).
#
#   sh bench/trace-cost.sh [repetitions]          (default 5)
#
# Builds build/bench/trace-cost (a release build: the budget is for the binary
# users run, not for a sanitizer build) and prints the machine, the commit and
# the program's table.  Its output is what bench/results/trace-cost-*.txt holds.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
reps=${1:-5}
case "$reps" in ''|*[!0-9]*) echo "bench/trace-cost.sh: repetitions must be a number" >&2; exit 2;; esac
make -s -C "$src" build/bench/trace-cost >/dev/null
echo "# bench/trace-cost.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "# commit $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$src" diff --quiet 2>/dev/null || echo ' (dirty)')"
echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$src/build/bench/trace-cost" "$reps"

#!/bin/sh
# The long fuzz campaign: each libFuzzer target of `make fuzz-build` (FUZZ_TARGETS in
# the Makefile) for SECONDS of wall time (default 1800) from the committed seed corpus,
# JOBS targets at a time (default 2, one per core of a 2-core machine); one summary file
# with the CPU time each target really had (user + system, from /usr/bin/time: on a busy
# machine less than the wall time), executions, coverage and findings per target.
#   [TARGETS="results render"] sh bench/fuzz-campaign.sh [SECONDS] [OUT] [JOBS]
# Run `make fuzz-build` first.
secs=${1:-1800}
out=${2:-bench/results/fuzz-campaign-$(date -u +%Y-%m-%d).txt}
jobs=${3:-2}
targets=${TARGETS:-$(sed -n "s/^FUZZ_TARGETS := //p" Makefile)}
work=$(mktemp -d)
{
    echo "# fuzz campaign: $secs s of wall time per target, $jobs targets at a time"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit: $(git rev-parse --short HEAD 2>/dev/null)"
    echo "# machine: $(uname -m), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), shared with other builds: executions are a floor"
    echo "# compiler: $(clang --version | head -1)"
    echo "# targets: $targets"
} > "$out"
run_one() {
    t=$1
    mkdir -p "$work/$t"
    /usr/bin/time -f "%U %S" -o "$work/$t.cpu" \
        build-fuzz/fuzz_$t -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$work/$t-" -print_final_stats=1 "$work/$t" tests/fuzz/corpus/$t \
        > "$work/$t.log" 2>&1
}
n=0
for t in $targets; do
    run_one "$t" &
    n=$((n + 1))
    [ $((n % jobs)) -eq 0 ] && wait
done
wait
for t in $targets; do
    echo "" >> "$out"
    echo "## fuzz_$t" >> "$out"
    awk '{printf "CPU time: %.0f s user + %.0f s system = %.1f CPU-minutes\n", $1, $2, ($1 + $2) / 60}' \
        "$work/$t.cpu" >> "$out"
    grep -E "^stat::|Done [0-9]+ runs|ERROR|SUMMARY|runtime error" "$work/$t.log" |
        awk '!seen[$0]++' >> "$out"
    tail -1 "$work/$t.log" | grep -q "Done" || tail -5 "$work/$t.log" >> "$out"
    n=$(ls "$work" | grep -c "^$t-" || true)
    echo "findings (crash/leak/timeout files): $n" >> "$out"
    ls "$work" | grep "^$t-" >> "$out" || true
    echo "corpus grown to: $(ls "$work/$t" | wc -l) new inputs" >> "$out"
done
rm -rf "$work"
echo "written: $out"

#!/bin/sh
# The long fuzz campaign (issue 15): each libFuzzer target of `make fuzz-build`
# for SECONDS (default 600) from the committed seed corpus, the three at once,
# on whatever machine this is; one summary file with executions, coverage and
# findings per target.  Usage: sh bench/fuzz-campaign.sh [SECONDS] [OUT]
secs=${1:-600}
out=${2:-bench/results/fuzz-campaign-$(date -u +%Y-%m-%d).txt}
work=$(mktemp -d)
{
    echo "# fuzz campaign: $secs s per target, the three targets at the same time"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit: $(git rev-parse --short HEAD 2>/dev/null)"
    echo "# machine: $(uname -m), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), shared with other builds: executions are a floor"
    echo "# compiler: $(clang --version | head -1)"
} > "$out"
for t in results render diff; do
    mkdir -p "$work/$t"
    build-fuzz/fuzz_$t -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$work/$t-" -print_final_stats=1 "$work/$t" tests/fuzz/corpus/$t \
        > "$work/$t.log" 2>&1 &
done
wait
for t in results render diff; do
    echo "" >> "$out"
    echo "## fuzz_$t" >> "$out"
    grep -E "^stat::|Done [0-9]+ runs|ERROR|SUMMARY|runtime error" "$work/$t.log" |
        awk '!seen[$0]++' >> "$out"
    tail -1 "$(ls "$work/$t.log")" | grep -q "Done" || tail -5 "$work/$t.log" >> "$out"
    n=$(ls "$work" | grep -c "^$t-" || true)
    echo "findings (crash/leak/timeout files): $n" >> "$out"
    ls "$work" | grep "^$t-" >> "$out" || true
    echo "corpus grown to: $(ls "$work/$t" | wc -l) new inputs" >> "$out"
done
rm -rf "$work"
echo "written: $out"

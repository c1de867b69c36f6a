#!/bin/sh
# How render and diff scale with the size of the results file (issue 15): the
# runs of examples/h100/run.json replicated to about 20 MB and 200 MB (10x),
# each rendered as Markdown and HTML and diffed against itself; wall time and
# peak memory (GNU time) per step.  Writes bench/results/large-input-DATE.txt.
# Usage: sh bench/large-input.sh [BIN] [COPIES_SMALL]   (the large is 10x)
set -e
bin=${1:-build/gpumem-report}
small=${2:-11}
large=$((small * 10))
out=bench/results/large-input-$(date -u +%Y-%m-%d).txt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
    echo "# render and diff of large results files"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit: $(git rev-parse --short HEAD 2>/dev/null)"
    echo "# machine: $(uname -m), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(free -g | awk '/Mem:/{print $2}') GiB;"
    echo "#   the 2 cores are shared with other builds and tests: times are upper bounds"
    echo "# input: examples/h100/run.json (256 runs) replicated, each copy a parameter copy=K"
    printf '%-10s %8s %8s %-12s %10s %12s %10s\n' size_MB runs copies step wall_s peak_RSS_MB RSS/size
} > "$out"
for copies in $small $large; do
    f=$work/big-$copies.json
    python3 bench/large-input.py examples/h100/run.json "$copies" "$f"
    mb=$(du -m "$f" | cut -f1)
    runs=$((copies * 256))
    for step in md html diff; do
        case $step in
        md) set -- render "$f" --out "$work/r.md" ;;
        html) set -- render "$f" --out "$work/r.html" ;;
        diff) set -- diff "$f" "$f" --out "$work/d.md" ;;
        esac
        /usr/bin/time -f '%e %M' -o "$work/t" "$bin" "$@" >/dev/null 2>"$work/err" || true
        read -r wall rss < "$work/t"
        rss_mb=$((rss / 1024))
        printf '%-10s %8s %8s %-12s %10s %12s %10s\n' "$mb" "$runs" "$copies" "$step" "$wall" \
            "$rss_mb" "$(echo "scale=2; $rss_mb / $mb" | bc)" >> "$out"
    done
done
cat "$out"

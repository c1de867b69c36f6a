#!/bin/sh
# bench/render.sh — wall time of `gpumem-report render` on the largest fixture.
#
#   sh bench/render.sh [path/to/gpumem-report] [repetitions]     (make bench)
#
# Renders tests/fixtures/handwritten-large.json to HTML and to Markdown
# `repetitions` times each (default 9) and prints the median, min and max wall
# time of each, with the machine it ran on.  Target: median under 1 s.
# The output is what bench/results/render-<date>.txt holds.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
bin=${1:-$src/build/gpumem-report}
reps=${2:-9}
fixture=$src/tests/fixtures/handwritten-large.json
[ -x "$bin" ] || { echo "bench/render.sh: no program at $bin (make first)" >&2; exit 2; }
[ -f "$fixture" ] || { echo "bench/render.sh: no fixture $fixture" >&2; exit 2; }
case "$reps" in ''|*[!0-9]*) echo "bench/render.sh: repetitions must be a number" >&2; exit 2;; esac

out=$(mktemp -d "${TMPDIR:-/tmp}/gm-bench-render-XXXXXX")
trap 'rm -rf "$out"' EXIT INT TERM
# templates/ next to the source tree, whatever build directory the program is in
GM_TEMPLATE_DIR=${GM_TEMPLATE_DIR:-$src/templates}
export GM_TEMPLATE_DIR

now() { date +%s.%N; }

# time_one FORMAT: prints one wall time in seconds
time_one() {
    t0=$(now)
    "$bin" render "$fixture" --out "$out/report.$1" >/dev/null
    t1=$(now)
    echo "$t0 $t1" | awk '{ printf "%.4f\n", $2 - $1 }'
}

# summary NAME FILE: median (middle of the sorted times; mean of the two middle
# ones for an even count), min, max
summary() {
    sort -n "$2" | awk -v name="$1" '
        { t[NR] = $1 }
        END {
            m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
            printf "%-9s median %.3f s   min %.3f s   max %.3f s   (%d runs)\n", name, m, t[1], t[NR], NR
        }'
}

# one untimed run each: page cache, and a check that it works at all
"$bin" render "$fixture" --out "$out/report.html"
"$bin" render "$fixture" --out "$out/report.md"
charts=$(ls "$out/report.charts" | wc -l)
html_bytes=$(wc -c < "$out/report.html")

for f in html md; do
    : > "$out/times.$f"
    i=0
    while [ "$i" -lt "$reps" ]; do
        time_one "$f" >> "$out/times.$f"
        i=$((i + 1))
    done
done

echo "gpumem-report render benchmark"
echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "machine:  $(uname -sm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
echo "gnuplot:  $(gnuplot --version 2>/dev/null || echo 'not found')"
echo "program:  $("$bin" --version)"
echo "input:    tests/fixtures/handwritten-large.json ($(wc -c < "$fixture") bytes)"
echo "output:   $charts charts; HTML page $html_bytes bytes"
summary html "$out/times.html"
summary markdown "$out/times.md"
awk -v a="$(sort -n "$out/times.html" | awk '{t[NR]=$1} END {print (NR%2)?t[(NR+1)/2]:(t[NR/2]+t[NR/2+1])/2}')" \
    -v b="$(sort -n "$out/times.md" | awk '{t[NR]=$1} END {print (NR%2)?t[(NR+1)/2]:(t[NR/2]+t[NR/2+1])/2}')" \
    'BEGIN { worst = (a > b) ? a : b; printf "target:   median under 1 s: %s (worst median %.3f s)\n", (worst < 1) ? "met" : "NOT met", worst }'

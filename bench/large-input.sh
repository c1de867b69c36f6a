#!/bin/sh
# How render and diff scale with the size of the results file (issue 15): the
# runs of examples/h100/run.json replicated to about 20 MB and 200 MB (10x),
# each rendered as Markdown and HTML and diffed against itself; wall time and
# peak memory (GNU time) per step, and the issue's targets checked: 10x the
# input takes at most 12x the time, the large file renders in under 30 s and
# in under 4x its size in memory.  Writes bench/results/large-input-DATE-COMMIT.txt.
# Usage: sh bench/large-input.sh [BIN] [COPIES_SMALL] [REPS]   (the large is 10x;
# each step's time is the best of REPS runs, default 3; its memory the largest)
set -e
bin=${1:-build/gpumem-report}
small=${2:-11}
large=$((small * 10))
reps=${3:-3}
out=bench/results/large-input-$(date -u +%Y-%m-%d)-$(git rev-parse --short HEAD 2>/dev/null || echo unknown).txt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
    echo "# render and diff of large results files"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit: $(git rev-parse --short HEAD 2>/dev/null)"
    echo "# machine: $(uname -m), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(free -g | awk '/Mem:/{print $2}') GiB;"
    echo "#   the 2 cores are shared with other builds and tests: each time is the best of $reps runs"
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
        # the best of $reps: the 2 cores are shared, and a slow repetition
        # measures the neighbours
        wall=; rss=
        for rep in $(seq "$reps"); do
            /usr/bin/time -f '%e %M' -o "$work/t" "$bin" "$@" >/dev/null 2>"$work/err" || true
            read -r w r < "$work/t"
            if [ -z "$wall" ] || [ "$(echo "$w < $wall" | bc)" = 1 ]; then wall=$w; fi
            if [ -z "$rss" ] || [ "$r" -gt "$rss" ]; then rss=$r; fi
        done
        rss_mb=$((rss / 1024))
        printf '%-10s %8s %8s %-12s %10s %12s %10s\n' "$mb" "$runs" "$copies" "$step" "$wall" \
            "$rss_mb" "$(echo "scale=2; $rss_mb / $mb" | bc)" >> "$out"
        echo "$copies $step $mb $wall $rss_mb" >> "$work/rows"
    done
done
# the targets (issue 15): time ratio at 10x the input <= 12; the large file's
# render under 30 s and under 4x its size in memory
awk -v small="$small" -v large="$large" '
    $1 == small { t[$2] = $4 }
    $1 == large { T[$2] = $4; mb = $3; rss[$2] = $5 }
    END {
        print "# targets:"
        bad = 0
        for (s in T) {
            r = t[s] > 0 ? T[s] / t[s] : 0
            ok = r <= 12
            bad += !ok
            printf "#   %-4s 10x input: %5.1fx the time (<= 12x)  %s\n", s, r, ok ? "met" : "NOT MET"
        }
        for (s in T) {
            if (s == "diff") continue
            ok = T[s] < 30 && rss[s] < 4 * mb
            bad += !ok
            printf "#   %-4s %d MB: %.1f s (< 30 s), %.2fx its size in memory (< 4x)  %s\n", s, mb, T[s], rss[s] / mb, ok ? "met" : "NOT MET"
        }
        printf "# %s\n", bad ? "some targets not met" : "all targets met"
    }' "$work/rows" >> "$out"
cat "$out"

#!/bin/sh
# program-vs-ncu.sh — profiling a whole program: gpumem-report -- PROGRAM
# against Nsight Compute on the same launches, with the same metrics and the
# same cache control (L2 flushed before each profiled launch: ncu
# --cache-control all, its default kernel replay; clocks as found on both).
#
#   bench/program-vs-ncu.sh OUTDIR NAME PROGRAM [ARGS...]
#
# Runs PROGRAM plainly, under `gpumem-report collect --launches each`, and
# under ncu, timing each whole process; compares the program's stdout between
# the plain run and the run under the tool, and every count of every launch
# between the tool and ncu (bench/program-vs-ncu.py); then makes the report
# (`gpumem-report --out OUTDIR/NAME/report.html`, not timed).  Prints the
# device, driver, date and commit first and one summary line last:
#   NAME plain P s | tool T s (+T-P) | ncu N s (+N-P) | overhead ratio R | output same|DIFFERS | counts ...
# TOOL (default build/gpumem-report), NCU (default /usr/local/cuda/bin/ncu).
set -eu
out=$1; name=$2; shift 2
tool=${TOOL:-build/gpumem-report}
ncu=${NCU:-/usr/local/cuda/bin/ncu}
here=$(cd "$(dirname "$0")" && pwd)
d=$out/$name
mkdir -p "$d"
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", b - a}'; }

echo "== $name: $*"
echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
# the commit the tool was built from (make GIT_COMMIT=... where the tree has no .git)
echo "commit:  $("$tool" --version | sed -n 's/.*commit \([^,)]*\).*/\1/p')"
command -v nvidia-smi >/dev/null 2>&1 &&
    echo "device:  $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader -i 0)"
echo "ncu:     $("$ncu" --version | tail -n 1)"

rc_plain=0; rc_tool=0
# the same metrics as ncu's: no per-source-line pass (a re-run of the program per kernel)
nosl=""; "$tool" collect --help 2>&1 | grep -q -- --no-source-lines && nosl=--no-source-lines
trials=${TRIALS:-3}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
"$@" >/dev/null 2>&1 || true   # once untimed: files and libraries in the page cache for every side
: >"$d/t.plain"; : >"$d/t.tool"; : >"$d/t.ncu"
k=1
while [ "$k" -le "$trials" ]; do
    t0=$(now); "$@" >"$d/plain.out" 2>"$d/plain.err" || rc_plain=$?; t1=$(now)
    "$tool" collect $nosl --launches each --json "$d/each.json" -- "$@" >"$d/tool.out" \
        2>"$d/tool.err" || rc_tool=$?
    t2=$(now)
    n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['runs']))" "$d/each.json")
    metrics=$(python3 -c "import json,sys; print(','.join(json.load(open(sys.argv[1]))['collection']['metrics']))" "$d/each.json")
    t3=$(now)
    "$ncu" --csv --print-units base --cache-control all --clock-control none --metrics "$metrics" \
        -c "$n" "$@" >"$d/ncu.csv" 2>"$d/ncu.err" || true
    t4=$(now)
    sub "$t0" "$t1" >>"$d/t.plain"; echo >>"$d/t.plain"
    sub "$t1" "$t2" >>"$d/t.tool"; echo >>"$d/t.tool"
    sub "$t3" "$t4" >>"$d/t.ncu"; echo >>"$d/t.ncu"
    echo "trial $k: plain $(sub "$t0" "$t1") s, tool $(sub "$t1" "$t2") s, ncu $(sub "$t3" "$t4") s"
    grep -h "^profiling:" "$d/tool.err" || true
    # each side's output of the last trial is compared below; any trial's differing output shows
    cmp -s "$d/plain.out" "$d/tool.out" || echo "trial $k: the program's output DIFFERS under the tool"
    k=$((k + 1))
done
plain=$(median <"$d/t.plain"); toolt=$(median <"$d/t.tool"); ncut=$(median <"$d/t.ncu")
# what the L2 flush ranges cost: the same collection without flushing (timing only)
t5=$(now)
"$tool" collect $nosl --no-cache-flush --launches each --json "$d/noflush.json" -- "$@" >/dev/null \
    2>"$d/noflush.err" || true
t6=$(now)
echo "without the L2 flush (not comparable to ncu's counts): tool $(sub "$t5" "$t6") s"
grep -h "^profiling:" "$d/noflush.err" || true
"$tool" --quiet $nosl --out "$d/report.html" --json "$d/run.json" -- "$@" >/dev/null 2>"$d/report.err" || true
"$tool" render "$d/run.json" --out "$d/report.md" >/dev/null 2>&1 || true
same=DIFFERS; cmp -s "$d/plain.out" "$d/tool.out" && same=same
counts=$(python3 "$here/program-vs-ncu.py" "$d/each.json" "$d/ncu.csv" | tee "$d/counts.txt" | tail -n 1)
echo "exit status: plain $rc_plain, under the tool $rc_tool"
awk -v n="$name" -v p="$plain" -v t="$toolt" -v c="$ncut" -v s="$same" -v k="$counts" -v l="$n" -v r="$trials" 'BEGIN {
    printf "%s (%d launches, medians of %d trials): plain %.2f s | tool %.2f s (+%.2f) | ncu %.2f s (+%.2f) | ncu adds %.1fx what the tool adds | output %s | %s\n",
        n, l, r, p, t, t - p, c, c - p, (c - p) / (t - p), s, k }'

#!/bin/sh
# tests/snapshot.sh — every page the tool writes from committed inputs, into one folder,
# so that two builds can be compared byte for byte (a refactoring changes none of them).
#
#   sh tests/snapshot.sh OUTDIR [path/to/gpumem-report]
#   diff -r OUTDIR-before OUTDIR-after
#
# Renders the committed runs (examples/, tests/fixtures/) as a suite report, a program
# report, a device comparison, a diff, a merge, a history trend, gate and export, in every
# format (md, html, gfm, csv, json), and each subcommand's --help.  A second pass renders
# the HTML pages with a gnuplot that only keeps its script (OUTDIR/gnuplot/), so that the
# charts' series, points and labels can be compared where their styling changed.
# Exit statuses are kept in OUTDIR/status.  Needs gnuplot and git (the history example
# orders commits by their dates).
set -u
out=${1:?usage: tests/snapshot.sh OUTDIR [BIN]}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${2:-$here/build/gpumem-report}
[ -x "$bin" ] || { echo "snapshot: no program at $bin" >&2; exit 2; }
rm -rf "$out" && mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
export GM_TEMPLATE_DIR="$here/templates"
# a sentence whose values do not match its format aborts (core/say.h): status 134
export GM_SAY_STRICT=1
cd "$here" || exit 2
: >"$out/status"

# run NAME CMD...: stdout to NAME.out, stderr to NAME.err, status appended
run() {
    n=$1
    shift
    "$@" >"$out/$n.out" 2>"$out/$n.err"
    echo "$n $?" >>"$out/status"
    [ -s "$out/$n.out" ] || rm -f "$out/$n.out"
    [ -s "$out/$n.err" ] || rm -f "$out/$n.err"
}

h100=examples/h100/run.json
h200=examples/h100-vs-h200/h200-run.json
for f in md html gfm csv; do
    run suite-$f "$bin" render "$h100" --out "$out/suite.$f" --format $f
    run app-$f "$bin" render examples/app/run.json --out "$out/app.$f" --format $f
    run pytorch-$f "$bin" render examples/pytorch/run.json --out "$out/pytorch.$f" --format $f
    run compare-$f "$bin" render "$h100" "$h200" --out "$out/compare.$f" --format $f
    run ranks-$f "$bin" render examples/h100-vs-h200/app-0.json \
        examples/h100-vs-h200/app-1.json --out "$out/ranks-compare.$f" --format $f
    for x in small large hostile minimal predicted; do
        run fixture-$x-$f "$bin" render tests/fixtures/handwritten-$x.json \
            --out "$out/fixture-$x.$f" --format $f
    done
done
run suite-only "$bin" render "$h100" --only transpose,banks --out "$out/suite-only.md"
run suite-baseline "$bin" render tests/fixtures/h100-transpose-pad-head.json \
    --baseline tests/fixtures/h100-transpose-pad-base.json --out "$out/suite-baseline.md"
run suite-timestamp "$bin" render "$h100" --timestamp --out "$out/suite-timestamp.md"
for f in md html csv; do
    run diff-example-$f "$bin" diff examples/diff/base.json examples/diff/head.json \
        --out "$out/diff-example.$f" --json "$out/diff-example-$f.json"
    run diff-fixture-$f "$bin" diff tests/fixtures/diff-base.json tests/fixtures/diff-head.json \
        --out "$out/diff-fixture.$f"
    run diff-all-$f "$bin" diff tests/fixtures/h100-transpose-pad-base.json \
        tests/fixtures/h100-transpose-pad-head.json --all --out "$out/diff-all.$f"
    run diff-rerun-$f "$bin" diff tests/fixtures/h100-rerun-0747.json \
        tests/fixtures/h100-rerun-0757.json --out "$out/diff-rerun.$f"
done
run diff-othergpu "$bin" diff tests/fixtures/diff-base.json tests/fixtures/diff-head-othergpu.json
run merge "$bin" merge examples/h100-vs-h200/app-0.json examples/h100-vs-h200/app-1.json \
    --json "$out/merge.json"
run merge-sum "$bin" merge examples/h100-vs-h200/app-0.json examples/h100-vs-h200/app-1.json \
    --sum --json "$out/merge-sum.json"
run list "$bin" list
run list-metrics "$bin" list --metrics
run version "$bin" --version
# the commit the program was built from is not output to compare
sed -i 's/commit [0-9a-f]\{7,40\}\(, dirty\)\{0,1\}/commit COMMIT/' "$out/version.out"
run help "$bin" --help
for c in collect render diff merge history list; do
    run help-$c "$bin" $c --help
done

# history: the committed runs, as examples/history/make.sh adds them
h=$(mktemp -d "${TMPDIR:-/tmp}/gm-snap-XXXXXX")
hists=$h
tar xzf examples/history/runs.tar.gz -C "$h"
db=$h/history.sqlite
for f in "$h"/runs/*.json; do
    n=$(basename "$f" .json)
    c=$(echo "$n" | cut -d- -f2)
    t=$(git show -s --format=%ct "$c" 2>/dev/null || echo 0)
    case "$n" in *-regression) t=$((t + 1)) ;; esac
    run history-add-$n "$bin" history add "$f" --db "$db" --commit-time "$t"
done
run history-report-html "$bin" history report --db "$db" --out "$out/trend.html"
run history-report-md "$bin" history report --db "$db" --out "$out/trend.md"
run history-report-all "$bin" history report --db "$db" --all --out "$out/trend-all.md"
run history-export "$bin" history export --db "$db" --format csv --out "$out/history.csv"
last=$(ls "$h"/runs/*-regression.json | tail -1)
run history-gate "$bin" history gate "$last" --db "$db" --out "$out/gate.md" \
    --json "$out/gate.json"
rm -rf "$h"

# the gnuplot scripts behind the HTML pages (series, points, labels): a gnuplot first in
# PATH that keeps its script and writes an empty SVG for every `set output`
# (the tool gives gnuplot only PATH, HOME and the locale, so the folder is written into it)
mkdir -p "$out/gnuplot/bin"
fake=$out/gnuplot/bin/gnuplot
# gp NAME CMD...: the command with the keeping gnuplot, its scripts in gnuplot/NAME/
gp() {
    n=$1
    shift
    mkdir -p "$out/gnuplot/$n"
    cat >"$fake" <<SH
#!/bin/sh
k=\$(ls "$out/gnuplot/$n" | wc -l)
cp "\$1" "$out/gnuplot/$n/script-\$k.gp"
sed -n "s/^set output '\\(.*\\)'\$/\\1/p" "\$1" | while read -r o; do
    printf '<svg xmlns="http://www.w3.org/2000/svg"></svg>\\n' >"\$o"
done
SH
    chmod +x "$fake"
    run gp-$n env PATH="$out/gnuplot/bin:$PATH" "$@"
}
gp suite "$bin" render "$h100" --out "$out/gnuplot/suite.html"
gp app "$bin" render examples/app/run.json --out "$out/gnuplot/app.html"
gp pytorch "$bin" render examples/pytorch/run.json --out "$out/gnuplot/pytorch.html"
gp fixture-large "$bin" render tests/fixtures/handwritten-large.json \
    --out "$out/gnuplot/fixture-large.html"
gp compare "$bin" render "$h100" "$h200" --out "$out/gnuplot/compare.html"
gp diff "$bin" diff tests/fixtures/h100-transpose-pad-base.json \
    tests/fixtures/h100-transpose-pad-head.json --out "$out/gnuplot/diff.html"
h=$(mktemp -d "${TMPDIR:-/tmp}/gm-snap-XXXXXX")
hists="$hists $h"
tar xzf examples/history/runs.tar.gz -C "$h"
for f in "$h"/runs/*.json; do
    "$bin" history add "$f" --db "$h/h.sqlite" --commit-time 0 >/dev/null 2>&1
done
gp trend "$bin" history report --db "$h/h.sqlite" --out "$out/gnuplot/trend.html"
rm -rf "$h" "$out/gnuplot/bin"
# paths that differ from one snapshot to the next: the program, the output folder and
# the history's temporary folders
for f in $(grep -rlI -e "$out" -e "$bin" $(for x in $hists; do printf -- '-e %s ' "$x"; done) \
        "$out"); do
    sed -i "s|$bin|gpumem-report|g; s|$out|OUT|g" "$f"
    for x in $hists; do sed -i "s|$x|HIST|g" "$f"; done
done
echo "snapshot: $(wc -l <"$out/status") commands, $(ls "$out" | wc -l) files in $out"

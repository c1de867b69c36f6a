#!/bin/sh
# report-size.sh — the size budgets of the report, checked on the committed
# example runs (issue 12): the full-suite HTML page under 1 MB and printed on
# fewer than 90 A4 pages (measured when chromium is installed; 46 until issue
# 28 had every fold print open, tables at 8 pt and one chart a row: 81 pages
# then), its Markdown under 120 KB (100 KB until issue 28 added each
# layout's memory hierarchy and what limits it: 112 KB then), and the GitHub
# form (--format gfm) of each single experiment, and each part of the whole
# suite's (cut into comment-sized parts), under 65,536 characters, GitHub's
# limit for an issue or comment body.  With chromium installed, also: tables wider than a
# 1280-px window (every fold opened; the page scrolls such a table sideways
# under its first column, but issue 12 asks that none need it): budget none.
#
#   bench/report-size.sh [BINARY]     (default build/gpumem-report)
#
# Prints the commit, date, every size with its budget, and exits 1 when one
# is over.  Sizes are bytes (the HTML and Markdown files; a chart directory
# is listed beside its Markdown) and characters (the GitHub form).
set -eu
bin=${1:-build/gpumem-report}
[ -x "$bin" ] || { echo "no program at $bin: run make first" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
over=0
check() { # label size budget unit
    if [ "$2" -lt "$3" ]; then verdict=ok; else verdict=OVER; over=1; fi
    printf '%-44s %10s %s  (budget < %s)  %s\n' "$1" "$2" "$4" "$3" "$verdict"
}
chars() { python3 -c 'import sys; print(len(open(sys.argv[1], encoding="utf-8").read()))' "$1"; }

echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "binary:  $bin"
echo
for ex in h100 app pytorch; do
    run=examples/$ex/run.json
    "$bin" render "$run" --out "$tmp/$ex.html" >/dev/null 2>&1
    "$bin" render "$run" --out "$tmp/$ex.md" >/dev/null 2>&1
    "$bin" render "$run" --format gfm --out "$tmp/$ex.gfm.md" >/dev/null 2>&1
    svgs=$(grep -o '<svg' "$tmp/$ex.html" | wc -l)
    svg_bytes=$(python3 -c 'import re,sys; print(sum(map(len, re.findall(r"<svg.*?</svg>", open(sys.argv[1]).read(), re.S))))' "$tmp/$ex.html")
    check "$run: HTML" "$(wc -c <"$tmp/$ex.html")" 1000000 bytes
    printf '%-44s %10s bytes  (%s inline charts)\n' "  of which SVG" "$svg_bytes" "$svgs"
    check "$run: Markdown" "$(wc -c <"$tmp/$ex.md")" 120000 bytes
    if [ -d "$tmp/$ex.charts" ]; then
        printf '%-44s %10s bytes  (%s files, beside the Markdown)\n' "  its chart directory" \
            "$(cat "$tmp/$ex.charts"/*.svg | wc -c)" "$(ls "$tmp/$ex.charts" | wc -l)"
    fi
    printf '%-44s %10s chars  (cut into parts when over 65,536)\n' \
        "$run: GitHub form, whole file" "$(chars "$tmp/$ex.gfm.md")"
    # each part (from one "<!-- gpumem-report part K of N -->" line to the next)
    python3 -c 'import re,sys; t=open(sys.argv[1], encoding="utf-8").read(); [print(len(p)) for p in re.split(r"(?=<!-- gpumem-report part )", t) if p]' \
        "$tmp/$ex.gfm.md" >"$tmp/parts"
    k=0
    while read -r n; do
        k=$((k + 1))
        check "  its part $k" "$n" 65536 chars
    done <"$tmp/parts"
    # the page on paper: A4 pages as headless Chromium prints it (when installed)
    if [ "$ex" = h100 ] && command -v chromium >/dev/null 2>&1; then
        chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer \
            --print-to-pdf="$tmp/$ex.pdf" "file://$tmp/$ex.html" >/dev/null 2>&1 || true
        if [ -s "$tmp/$ex.pdf" ]; then
            pages=$(python3 -c 'import re,sys; print(len(re.findall(rb"/Type\s*/Page[^s]", open(sys.argv[1], "rb").read())))' "$tmp/$ex.pdf")
            check "$run: HTML printed, A4 pages" "$pages" 90 pages
        fi
    fi
    # tables that do not fit a 1280-px window, every <details> opened
    if command -v chromium >/dev/null 2>&1; then
        sed 's#</body>#<script>document.querySelectorAll("details").forEach(function(d){d.open=true});var n=0;document.querySelectorAll("table").forEach(function(t){if(t.scrollWidth>t.clientWidth+1)n++});document.body.setAttribute("data-wide",n);</script></body>#' \
            "$tmp/$ex.html" >"$tmp/$ex.wide.html"
        wide=$(chromium --headless --no-sandbox --disable-gpu --window-size=1280,1000 --dump-dom \
            "file://$tmp/$ex.wide.html" 2>/dev/null | sed -n 's/.*data-wide="\([0-9]*\)".*/\1/p' | head -n 1)
        [ -n "$wide" ] && check "$run: tables wider than 1280 px" "$wide" 1 tables
    fi
done
echo
# one experiment at a time, as pasted into an issue
ids=$(python3 -c 'import json,sys; print(" ".join(e["id"] for e in json.load(open(sys.argv[1]))["experiments"]))' examples/h100/run.json)
for id in $ids; do
    "$bin" render examples/h100/run.json --only "$id" --format gfm --out "$tmp/one.md" >/dev/null 2>&1
    check "h100 --only $id --format gfm" "$(chars "$tmp/one.md")" 65536 chars
done
exit $over

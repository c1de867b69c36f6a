#!/bin/sh
# make.sh — the history example, from the commits to the trend page.
#
#   examples/history/make.sh trees DIR     pack each commit of `commits` (git archive, without
#                                          examples/, bench/results, tests/fixtures, docs/) and
#                                          the regression into DIR, with device.sh
#   DIR/device.sh OUT                      on the GPU machine: build each tree, collect
#   examples/history/make.sh history OUT   add OUT/runs/*.json to a new history database
#                                          (OUT/history.sqlite) and write trend.html, trend.md,
#                                          gate.md and transpose.csv here
#
# The runs the committed pages came from are in runs.tar.gz (runs/ and the device's logs/):
#   mkdir /tmp/h && tar xzf examples/history/runs.tar.gz -C /tmp/h &&
#   examples/history/make.sh history /tmp/h
#
# The GPU step for the committed example ran as (HELPERS.md, the `run` tool):
#   source .deps/use-deps; .gpu-i13/device.sh $OUT
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cmd=${1:?usage: make.sh trees DIR | make.sh history OUT}
arg=${2:?usage: make.sh trees DIR | make.sh history OUT}
names() { grep -v '^#' "$here/commits" | grep -v '^$'; }

case "$cmd" in
trees)
    mkdir -p "$arg/trees"
    cp "$here/device.sh" "$arg/"
    : >"$arg/list"
    i=0
    for spec in $(names); do
        i=$((i + 1))
        c=${spec%%+*}
        full=$(git -C "$repo" rev-parse --verify "$c^{commit}")
        n=$(printf '%02d-%s' "$i" "$c")
        dirty=0
        if [ "$spec" != "$c" ]; then
            n="$n-regression"
            dirty=1
            tmp=$(mktemp -d)
            git -C "$repo" archive "$full" -- . ':!examples' ':!bench/results' \
                ':!tests/fixtures' ':!tests/golden' ':!docs' | tar x -C "$tmp"
            (cd "$tmp" && patch -s -p1 <"$here/${spec#*+}")
            tar czf "$arg/trees/$n.tar.gz" -C "$tmp" .
            rm -rf "$tmp"
        else
            git -C "$repo" archive --format=tar.gz -o "$arg/trees/$n.tar.gz" "$full" -- . \
                ':!examples' ':!bench/results' ':!tests/fixtures' ':!tests/golden' ':!docs'
        fi
        echo "$full" >"$arg/trees/$n.commit"
        echo "$dirty" >"$arg/trees/$n.dirty"
        echo "$n" >>"$arg/list"
    done
    du -sh "$arg"
    ;;
history)
    bin=${GPUMEM_REPORT:-$repo/build/gpumem-report}
    cd "$arg"
    rm -f history.sqlite history.sqlite-wal history.sqlite-shm
    for f in runs/*.json; do
        n=$(basename "$f" .json)
        c=$(echo "$n" | cut -d- -f2)
        # commit order: the commit's own date; the regression one second after its base
        t=$(git -C "$repo" show -s --format=%ct "$c")
        case "$n" in *-regression) t=$((t + 1)) ;; esac
        "$bin" history add "$f" --db history.sqlite --commit-time "$t"
    done
    "$bin" history report --db history.sqlite --out "$here/trend.html"
    "$bin" history report --db history.sqlite --out "$here/trend.md"
    "$bin" history export --db history.sqlite --format csv --only transpose \
        --out "$here/transpose.csv"
    last=$(ls runs/*-regression.json | tail -1)
    "$bin" history gate "$last" --db history.sqlite --out "$here/gate.md" ||
        echo "gate: exit $? (expected 1: the regression)"
    ;;
*)
    echo "make.sh: unknown step '$cmd'" >&2
    exit 2
    ;;
esac

#!/bin/bash
# device.sh OUT — on the GPU machine: build each tree that make.sh packed
# beside this script (trees/NAME.tar.gz, with NAME.commit and NAME.dirty) and
# collect the experiments most likely to move with each tree's own binary.
# Writes OUT/runs/NAME.json, OUT/logs/, and prints a table last.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: device.sh OUT}
only=${GM_HISTORY_ONLY:-transpose,banks,matmul,alignment}
mkdir -p "$out/runs" "$out/logs" "$here/w"
names=$(cat "$here/list")

# Builds, four trees at a time with four jobs each (16 cores).
build() {
    local n=$1
    rm -rf "$here/w/$n" && mkdir -p "$here/w/$n" &&
        tar xzf "$here/trees/$n.tar.gz" -C "$here/w/$n" &&
        make -C "$here/w/$n" -j4 GIT_COMMIT="$(cat "$here/trees/$n.commit")" \
            GIT_DIRTY="$(cat "$here/trees/$n.dirty")" build/gpumem-report \
            >"$out/logs/build-$n.log" 2>&1
    echo $? >"$out/logs/build-$n.rc"
}
t0=$(date +%s)
for n in $names; do
    build "$n" &
    while [ "$(jobs -rp | wc -l)" -ge 4 ]; do wait -n; done
done
wait
t1=$(date +%s)
echo "builds: $((t1 - t0)) s"

# Collections, one after the other (one GPU).
for n in $names; do
    if [ "$(cat "$out/logs/build-$n.rc")" != 0 ]; then
        echo "skip" >"$out/logs/collect-$n.rc"
        continue
    fi
    s=$(date +%s.%N)
    "$here/w/$n/build/gpumem-report" collect --only "$only" --quiet \
        --json "$out/runs/$n.json" >"$out/logs/collect-$n.log" 2>&1
    echo $? >"$out/logs/collect-$n.rc"
    awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", e - s }' >"$out/logs/collect-$n.seconds"
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/logs/device.txt" 2>&1
date -u +%Y-%m-%dT%H:%M:%SZ >>"$out/logs/device.txt"

printf '%-24s %-8s %-8s %-8s %s\n' tree build collect seconds bytes
for n in $names; do
    printf '%-24s %-8s %-8s %-8s %s\n' "$n" "$(cat "$out/logs/build-$n.rc")" \
        "$(cat "$out/logs/collect-$n.rc")" "$(cat "$out/logs/collect-$n.seconds" 2>/dev/null)" \
        "$(stat -c %s "$out/runs/$n.json" 2>/dev/null)"
done

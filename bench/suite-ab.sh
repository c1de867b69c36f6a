#!/bin/sh
# suite-ab.sh OUT BASE.tar.gz [BASE_NAME] — the suite's main job at its defaults by an earlier
# tree and by this one, on the same GPU in one call: BASE.tar.gz is `git archive` of the
# earlier commit's build inputs (Makefile core cli collectors kernels reports orchestrate
# templates tests/gpu examples/app/lab.cu), built in /tmp/base; this tree must be built
# (make).  Order: base, this tree with each case's phases (bench/suite-phases.sh, which also
# runs the per-line pass at other widths: JOBS), base again (unless BASE2=0).  OUT/ab.txt: each run's wall
# time and time line; OUT/*.json: the results, for comparing counts offline.
set -u
O=${1:?usage: suite-ab.sh OUT BASE.tar.gz [BASE_NAME]}
B=${2:?usage: suite-ab.sh OUT BASE.tar.gz [BASE_NAME]}
N=${3:-base}
mkdir -p "$O" /tmp/base
tar xzf "$B" -C /tmp/base || exit 2
(cd /tmp/base && make -j"$(nproc)" GIT_COMMIT="$N" GIT_DIRTY=0 > build.log 2>&1) || {
    tail -20 /tmp/base/build.log; exit 2; }
{
    echo "# bench/suite-ab.sh: the main job by $N and by $(cat .commit 2>/dev/null || echo this tree)"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# device, driver: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i 0)"
} > "$O/ab.txt"
base() {
    t0=$(date +%s.%N)
    timeout 200 /tmp/base/build/gpumem-report --out "$O/$1.html" --json "$O/$1.json" 2> "$O/$1.err"
    rc=$?
    echo "## $N ($1): rc $rc wall $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s" >> "$O/ab.txt"
    grep -E '^(time:|source lines)' "$O/$1.err" >> "$O/ab.txt"
}
base base1
sh bench/suite-phases.sh "$O/head" > /dev/null 2>&1
echo "## this tree: bench/suite-phases.sh" >> "$O/ab.txt"
cat "$O/head/summary.txt" >> "$O/ab.txt"
[ "${BASE2:-1}" = 0 ] || base base2
cat "$O/ab.txt"

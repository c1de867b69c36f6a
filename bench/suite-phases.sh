#!/bin/sh
# suite-phases.sh OUT [COMMIT] — the suite's main job at its defaults with every case's phases
# on stderr (GPUMEM_REPORT_CASE_TIMES=1: setup, model, validation, timing, and the experiment's
# profiling charged to its last case; GPUMEM_REPORT_CHILD_TIMES=FILE: each traced case's setup and
# launch in the per-line children, each child's tracer start, context and records, and the pass's
# trace and SASS-recount parts), then again with the per-line pass spread over JOBS processes
# (GPUMEM_REPORT_JOBS, default "2 4"), to see where a default run's time goes and what the
# per-line pass gains from width.  Run from the repository root on the GPU machine after make.
# Writes OUT/summary.txt: per experiment the sum of each phase, the ten slowest cases, the
# traced cases' sums, and each run's time line.
set -u
O=${1:?usage: suite-phases.sh OUT [COMMIT]}
C=${2:-$(cat .commit 2>/dev/null || echo unknown)}
mkdir -p "$O"
GR=./build/gpumem-report
{
    echo "# bench/suite-phases.sh: where the suite's main job spends its time, case by case"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# device, driver: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i 0)"
    echo "# commit: $C; $(nproc) CPU cores"
} > "$O/summary.txt"
t0=$(date +%s.%N)
O=$(cd "$O" && pwd)   # the children append to CT: an absolute path
CT=$O/child-times.txt
rm -f "$CT"
GPUMEM_REPORT_CASE_TIMES=1 GPUMEM_REPORT_CHILD_TIMES=$CT timeout 200 "$GR" --out "$O/main.html" \
    --json "$O/main.json" 2> "$O/main.err"
touch "$CT"
echo "main job rc $? wall $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s" >> "$O/summary.txt"
python3 - "$O/main.err" "$CT" >> "$O/summary.txt" <<'PY'
import re, sys, collections
exp = collections.OrderedDict()
cases = []
child = collections.OrderedDict()
procs, other = [], []
for line in list(open(sys.argv[1])) + list(open(sys.argv[2])):
    if line.startswith(("trace-child process", "per-line pass", "sass-child times")):
        (procs if line.startswith("trace-child process") else other).append(line.rstrip())
        continue
    m = re.match(r"case-times \(s\): (\S+?)/(\S+)(.*?) setup ([\d.]+) model ([\d.]+) validate ([\d.]+) timing ([\d.]+) profile ([\d.]+)", line)
    if m:
        e = m.group(1)
        v = [float(m.group(i)) for i in range(4, 9)]
        s = exp.setdefault(e, [0.0] * 5)
        for i in range(5):
            s[i] += v[i]
        cases.append((sum(v), "%s/%s%s" % (e, m.group(2), m.group(3)), v))
        continue
    m = re.match(r"trace-child times \(s\): (\S+?)/(\S+) setup ([\d.]+), traced launch ([\d.]+)", line)
    if m:
        s = child.setdefault(m.group(1), [0.0, 0.0, 0])
        s[0] += float(m.group(3)); s[1] += float(m.group(4)); s[2] += 1
print("\n## per experiment, summed over its cases (s)")
print("%-12s %8s %8s %8s %8s %8s %8s" % ("experiment", "setup", "model", "validate", "timing", "profile", "all"))
tot = [0.0] * 5
for e, s in exp.items():
    print("%-12s %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f" % ((e,) + tuple(s) + (sum(s),)))
    tot = [a + b for a, b in zip(tot, s)]
print("%-12s %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f" % (("all",) + tuple(tot) + (sum(tot),)))
print("\n## the 15 slowest cases (s): setup model validate timing profile")
for t, name, v in sorted(cases, reverse=True)[:15]:
    print("%7.3f  %-58s %s" % (t, name, " ".join("%.3f" % x for x in v)))
print("\n## the per-line child, per experiment: cases, setup, traced launch (s)")
for e, s in child.items():
    print("%-12s %3d %8.3f %8.3f" % (e, s[2], s[0], s[1]))
print("all          %3d %8.3f %8.3f" % (sum(s[2] for s in child.values()), sum(s[0] for s in child.values()), sum(s[1] for s in child.values())))
print("\n## each trace child's process, and the per-line pass's parts")
for l in procs + other:
    print(l)
PY
grep -E '^(time:|source lines|results:|report:)' "$O/main.err" >> "$O/summary.txt"
for j in ${JOBS-2 4}; do
    t0=$(date +%s.%N)
    GPUMEM_REPORT_JOBS=$j timeout 200 "$GR" --out "$O/jobs$j.html" --json "$O/jobs$j.json" 2> "$O/jobs$j.err"
    echo "" >> "$O/summary.txt"
    echo "## GPUMEM_REPORT_JOBS=$j: rc $? wall $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s" >> "$O/summary.txt"
    grep -E '^(time:|source lines)' "$O/jobs$j.err" >> "$O/summary.txt"
done
cat "$O/summary.txt"

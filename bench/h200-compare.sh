#!/bin/bash
# The evidence of issue 16 on one GPU machine (H100 or H200), from the
# repository root, after `source .deps/use-deps; make -j16`:
#
#   A. the full suite, collected as usual                       -> run.json
#   B. --device all on a one-GPU machine: one device found, one process, the
#      same runs as `collect` (paired by `gpumem-report diff`)   -> all-0.json
#   C. two processes started together on the one GPU: they take turns (the
#      lock keyed by the GPU's UUID), the second waits          -> lock-a/b.json
#   D. a program under two ranks on the one GPU: a real `mpirun -np 2` when
#      .mpi/debs is here (bench/fetch-mpi.sh), else two processes started by
#      this script with OMPI_COMM_WORLD_RANK set; then merged    -> app-ranks.json/.html
#   E. the comparison of run.json with $COMPARE_WITH (default the committed
#      H100 run, examples/h100/run.json)                         -> compare.html/.md
#
# Everything goes to $WORK (default /tmp/gm-evidence), then into $OUT (the
# device run's folder; default $WORK/out): evidence.tgz (all logs and files),
# summary.txt, run.json, compare.html, app-ranks.html.  Prints the summary
# table last.  QUICK=1 collects A with --quick (a smoke run of the script).
set -uo pipefail
BIN=${BIN:-build/gpumem-report}
APP=${APP:-build/examples/app/lab}
W=${WORK:-/tmp/gm-evidence}
OUT=${OUT:-$W/out}
COMPARE_WITH=${COMPARE_WITH:-examples/h100/run.json}
rm -rf "$W"
mkdir -p "$W" "$OUT"
S=$W/summary.txt
: > "$S"
say() { printf '%s\n' "$*" | tee -a "$S"; }
now() { date +%s.%N; }
field() {   # field FILE PYTHON-EXPR-ON-r
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null || echo "?"
}

say "# gpumem-report issue 16 evidence"
say "date (UTC): $(date -u +%Y-%m-%dT%H:%M:%SZ)"
# the commit the binary was built from (make GIT_COMMIT=... on a copy of the tree)
say "commit: $(sed -n 's/^#define GM_GIT_COMMIT "\(.*\)"$/\1/p' "$(dirname "$BIN")/gm_version.h" 2>/dev/null || echo unknown)"
say "host: $(hostname)"
nvidia-smi -L 2>&1 | sed 's/^/gpu: /' | tee -a "$S"
say "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
say ""

# ---- A. the full suite ------------------------------------------------------
q=; [ "${QUICK:-0}" = 1 ] && q=--quick
t0=$(now)
$BIN collect $q --json "$W/run.json" > "$W/A-full.log" 2>&1
rcA=$?
tA=$(python3 -c "print(f'{$(now)-$t0:.1f}')")
say "A full suite ${q:-(full sizes)}: exit $rcA, $(field "$W/run.json" 'len(r["runs"])') runs in $tA s; copy bandwidth $(field "$W/run.json" 'round(r["device"]["copy_bandwidth_gbs"],1)') GB/s"

# ---- B. --device all on one GPU ---------------------------------------------
$BIN collect --quick --json "$W/single.json" > "$W/B-single.log" 2>&1
rcB1=$?
$BIN collect --device all --quick --json "$W/all-%d.json" > "$W/B-all.log" 2>&1
rcB2=$?
$BIN diff "$W/single.json" "$W/all-0.json" --out "$W/B-all-vs-single.md" > "$W/B-diff.log" 2>&1
rcBd=$?
procs=$(grep -c 'one device (0), collected in this process' "$W/B-all.log")
same=$(python3 - "$W/single.json" "$W/all-0.json" <<'PY' 2>/dev/null || echo "?"
import json, sys
def cases(f):
    r = json.load(open(f))
    return {(x["experiment"], x["variant"], json.dumps(sorted(x["params"].items()) if isinstance(x["params"], dict) else x["params"], sort_keys=True)): x["check"]["status"] for x in r["runs"]}
a, b = cases(sys.argv[1]), cases(sys.argv[2])
print(f"{len(a)} vs {len(b)} cases, {'the same cases' if a.keys() == b.keys() else 'DIFFERENT cases'}, "
      f"{'the same validation' if a == b else 'DIFFERENT validation'} ({sum(v == 'passed' for v in b.values())} passed)")
PY
)
say "B --device all on one GPU: exit $rcB2 (collect: $rcB1); 'one device, collected in this process': $procs; $same; diff: $(head -1 "$W/B-all-vs-single.md" | sed 's/^### //') (exit $rcBd; run-to-run noise of quick sizes)"

# ---- C. two processes on one GPU take turns ---------------------------------
t0=$(now)
$BIN collect --quick --only coalescing,transpose --json "$W/lock-a.json" > "$W/C-lock-a.log" 2>&1 &
pa=$!
$BIN collect --quick --only coalescing,transpose --json "$W/lock-b.json" > "$W/C-lock-b.log" 2>&1 &
pb=$!
wait $pa; rca=$?
wait $pb; rcb=$?
tC=$(python3 -c "print(f'{$(now)-$t0:.1f}')")
for x in a b; do
    eval "w$x=\$(field \"\$W/lock-$x.json\" 'str(r[\"collection\"][\"process\"][\"lock_waits\"])+\" wait(s), \"+format(r[\"collection\"][\"process\"][\"lock_wait_seconds\"],\".1f\")+\" s waited, \"+format(r[\"collection\"][\"total_seconds\"],\".1f\")+\" s in all\"')"
done
say "C lock: exits $rca/$rcb in $tC s of wall time; a: $wa; b: $wb"
grep -h 'waiting for its turn\|our turn' "$W"/C-lock-*.log | sed 's/^/  /' | tee -a "$S"

# ---- D. a program under two ranks on one GPU --------------------------------
launcher="script (OMPI_COMM_WORLD_RANK=0,1)"
if [ -d .mpi/debs ] && ls .mpi/debs/*.deb > /dev/null 2>&1; then
    M=/opt/gm-mpi
    if [ ! -x $M/usr/bin/orterun ]; then
        mkdir -p $M && for f in .mpi/debs/*.deb; do dpkg -x "$f" $M; done
    fi
    export OPAL_PREFIX=$M/usr PMIX_MCA_pcompress_base_silence_warning=1
    mpi_ld=$M/usr/lib/x86_64-linux-gnu:$M/usr/lib/x86_64-linux-gnu/openmpi/lib
    LD_LIBRARY_PATH=$mpi_ld:${LD_LIBRARY_PATH:-} $M/usr/bin/orterun --allow-run-as-root \
        --oversubscribe -np 2 -x PATH \
        $BIN collect --json "$W/app-%r.json" -- "$APP" > "$W/D-ranks.log" 2>&1
    rcD=$?
    launcher="mpirun -np 2 (Open MPI $(LD_LIBRARY_PATH=$mpi_ld $M/usr/bin/orterun --version 2>/dev/null | head -1 | grep -o '[0-9][0-9.]*$'))"
else
    OMPI_COMM_WORLD_RANK=0 $BIN collect --json "$W/app-%r.json" -- "$APP" > "$W/D-rank0.log" 2>&1 &
    p0=$!
    OMPI_COMM_WORLD_RANK=1 $BIN collect --json "$W/app-%r.json" -- "$APP" > "$W/D-rank1.log" 2>&1 &
    p1=$!
    wait $p0; r0=$?; wait $p1; r1=$?
    rcD=$(( r0 > r1 ? r0 : r1 ))
fi
$BIN merge "$W/app-0.json" "$W/app-1.json" --json "$W/app-ranks.json" > "$W/D-merge.log" 2>&1
rcM=$?
$BIN merge "$W/app-0.json" "$W/app-1.json" --sum --json "$W/app-sum.json" >> "$W/D-merge.log" 2>&1
$BIN render "$W/app-ranks.json" --out "$W/app-ranks.html" >> "$W/D-merge.log" 2>&1
rcR=$?
say "D ranks via $launcher: exit $rcD; merge exit $rcM, render exit $rcR"
for k in 0 1; do
    say "  rank $k: $(field "$W/app-$k.json" 'str(len(r["runs"]))+" runs, pid "+str(r["collection"]["process"]["pid"])+", rank var "+str(r["collection"]["process"]["rank_var"])+", "+str(r["collection"]["process"]["lock_turns"])+" turns, "+str(r["collection"]["process"]["lock_waits"])+" waited, "+format(r["collection"]["process"]["lock_wait_seconds"],".3f")+" s"')"
done
say "  merged: $(field "$W/app-ranks.json" 'str(len(r["runs"]))+" runs, "+str(len(r["collection"]["ranks"]))+" ranks"')"

# ---- E. the comparison --------------------------------------------------------
$BIN render "$COMPARE_WITH" "$W/run.json" --out "$W/compare.html" > "$W/E-compare.log" 2>&1
rcE=$?
$BIN render "$COMPARE_WITH" "$W/run.json" --out "$W/compare.md" >> "$W/E-compare.log" 2>&1
say "E compare $COMPARE_WITH vs run.json: exit $rcE, $(wc -c < "$W/compare.html" 2>/dev/null || echo 0) bytes of HTML"

tar czf "$OUT/evidence.tgz" -C "$W" --exclude=out . 2>/dev/null
cp "$S" "$W/run.json" "$W/compare.html" "$W/app-ranks.html" "$OUT/" 2>/dev/null
echo
cat "$S"

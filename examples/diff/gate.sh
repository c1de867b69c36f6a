#!/bin/sh
# gate.sh — the GPU job of a project's CI: collect this commit's results, keep
# them as RESULTS_DIR/<commit>.json, judge them against the history of the
# main branch (gpumem-report history gate: the same GPU and settings, counters
# against the latest commit, times against the samples of the last five), or,
# with no history yet, against the commit the branch forked from (diff); post
# the Markdown on the pull request, and fail the job when something regressed.
# On the main branch the results are added to the history.
#
#   examples/diff/gate.sh [BASE_REF]        (default BASE_REF: origin/main)
#
# Run it from the repository root on the GPU runner, after
# `make build/gpumem-report`.  The base commit is `git merge-base BASE_REF
# HEAD`; when that is HEAD itself (a push to the main branch), the script
# only collects and stores.  When the base has no results yet, it says how to
# get them and exits 2 (or, with COLLECT_BASE=1, builds the base in a
# temporary worktree and collects them first).
#
# Environment (all optional):
#   GPUMEM_REPORT  the binary                          (default: build/gpumem-report)
#   RESULTS_DIR    where <commit>.json files are kept  (default: results)
#   HISTORY_DB     the history database (default: RESULTS_DIR/gpumem-history.sqlite);
#                  keep it with the results (a CI cache or artifact)
#   GATE_ARGS      more arguments for `gpumem-report history gate`, e.g. "--allow-missing"
#   GATE_OUT       where diff.md, diff.html, diff.json go (default: gate-out)
#   COLLECT_ARGS   more arguments for `gpumem-report collect`, e.g. "--only transpose,banks"
#   DIFF_ARGS      more arguments for `gpumem-report diff`, e.g. "--threshold time=5%,0.01"
#   PR_NUMBER      post diff.md on this pull request with `gh pr comment`
#   COLLECT_BASE   1: collect the base's results when they are missing
#   RECOLLECT      1: collect this commit again even if its results exist
#
# Exit status: 0 no regression; 1 a regression, or a run whose validation
# failed in this commit; 2 cannot judge (no base results, the two files were
# collected on a different GPU, driver or settings, bad input, no GPU).
set -u

base_ref=${1:-origin/main}
bin=${GPUMEM_REPORT:-build/gpumem-report}
results=${RESULTS_DIR:-results}
out=${GATE_OUT:-gate-out}

say() { printf 'gate: %s\n' "$*" >&2; }

[ -x "$bin" ] || { say "no $bin: run 'make build/gpumem-report' first"; exit 2; }
head=$(git rev-parse --verify HEAD) || exit 2
base=$(git merge-base "$base_ref" HEAD) || { say "no merge base of $base_ref and HEAD (fetch it: git fetch origin, or checkout with fetch-depth: 0)"; exit 2; }
mkdir -p "$results" "$out" || exit 2
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    say "the tree has uncommitted changes: $head.json will say dirty"
fi

# collect BIN FILE: results of the code BIN was built from, written whole
# (a temporary name, renamed when collect is done).  collect exits 1 when a
# variant failed validation: the file is still written, and the diff reports
# the failure (and fails the gate on it).
collect() {
    say "collecting with $1 -> $2"
    # COLLECT_ARGS is split on spaces on purpose: several arguments.
    # shellcheck disable=SC2086
    "$1" collect ${COLLECT_ARGS:-} --quiet --json "$2.part"
    rc=$?
    if [ "$rc" -le 1 ] && [ -s "$2.part" ]; then
        mv "$2.part" "$2"
        return 0
    fi
    rm -f "$2.part"
    say "collect failed (exit $rc)"
    return 2
}

if [ -f "$results/$head.json" ] && [ "${RECOLLECT:-0}" != 1 ]; then
    say "results for $head already kept: $results/$head.json"
else
    collect "$bin" "$results/$head.json" || exit 2
fi

db=${HISTORY_DB:-$results/gpumem-history.sqlite}
if [ "$base" = "$head" ]; then
    "$bin" history add "$results/$head.json" --db "$db" \
        --commit-time "$(git show -s --format=%ct HEAD)" || exit 2
    say "HEAD is the base ($base_ref): results stored and added to the history $db"
    exit 0
fi

post() {
    if [ -s "$1" ] && [ -n "${PR_NUMBER:-}" ]; then
        if command -v gh >/dev/null 2>&1; then
            gh pr comment "$PR_NUMBER" --body-file "$1" || say "could not post the comment"
        else
            say "PR_NUMBER is set but gh is not installed: not posted"
        fi
    fi
}

# With a history: the gate against it (exit 2 when it holds nothing of this
# GPU and settings: then the pairwise diff below judges).
if [ -f "$db" ]; then
    status=0
    # shellcheck disable=SC2086
    "$bin" history gate "$results/$head.json" --db "$db" ${GATE_ARGS:-} \
        --out "$out/gate.md" || status=$?
    if [ "$status" -le 1 ]; then
        post "$out/gate.md"
        [ "$status" = 0 ] && say "no regression against the history: $out/gate.md" ||
            say "regression against the history: see $out/gate.md"
        exit "$status"
    fi
    say "the history $db cannot judge this run (exit $status): comparing with the base commit"
fi

if [ ! -f "$results/$base.json" ]; then
    if [ "${COLLECT_BASE:-0}" != 1 ]; then
        say "no results for the base $base in $results/: run this script on that commit"
        say "(the main branch's job stores them), or set COLLECT_BASE=1"
        exit 2
    fi
    wt=$(mktemp -d "${TMPDIR:-/tmp}/gate-base.XXXXXX") || exit 2
    rmdir "$wt"
    say "building the base $base in $wt"
    if git worktree add --quiet --detach "$wt" "$base" &&
        make -C "$wt" -j"$(nproc 2>/dev/null || echo 4)" build/gpumem-report >"$out/base-build.log" 2>&1; then
        collect "$wt/build/gpumem-report" "$results/$base.json"
        rc=$?
    else
        say "could not build the base (log: $out/base-build.log)"
        rc=2
    fi
    git worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
    [ "$rc" -eq 0 ] || exit 2
fi

# The comment: only the rows that changed, cut to fit GitHub's 65536
# characters (the default Markdown); the page and the JSON keep every row.
status=0
# shellcheck disable=SC2086
"$bin" diff "$results/$base.json" "$results/$head.json" ${DIFF_ARGS:-} \
    --out "$out/diff.md" --json "$out/diff.json" || status=$?
# shellcheck disable=SC2086
"$bin" diff "$results/$base.json" "$results/$head.json" ${DIFF_ARGS:-} \
    --out "$out/diff.html" --warn-only >/dev/null 2>&1

post "$out/diff.md"

case $status in
0) say "no regression against $base (${base_ref}): $out/diff.md" ;;
1) say "regression against $base (${base_ref}): see $out/diff.md" ;;
*)
    say "cannot judge (diff exit $status): see the messages above, and $out/diff.md if written"
    status=2
    ;;
esac
exit "$status"

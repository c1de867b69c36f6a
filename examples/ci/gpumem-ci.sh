#!/bin/sh
# gpumem-ci.sh — the GPU job of the CI recipe (docs/ci.md): collect this
# commit's results; on the main branch add them to the history; on a pull or
# merge request judge them against that history (`history gate`), post the
# Markdown verdict on it, and fail the job when something regressed.  The
# GitHub Actions workflow (github-actions.yml) and the GitLab CI job
# (gitlab-ci.yml) beside it run this script; they keep the history database
# between runs (a cache, or an artifact).
#
#   sh examples/ci/gpumem-ci.sh main|pr
#
# Run it from the repository root on the GPU runner, after
# `make build/gpumem-report`.
#
# Environment (all optional):
#   GPUMEM_REPORT        the binary                       (default: build/gpumem-report)
#   GPUMEM_CI_DB         the history database             (default: gpumem-history.sqlite)
#   GPUMEM_CI_OUT        where results.json, gate.md and gate.json go (default: gpumem-out)
#   GPUMEM_CI_RESULTS    a results file already collected: copied instead of collecting
#                        (a collect done by an earlier step; a recorded run in tests)
#   GPUMEM_CI_COLLECT_ARGS  more arguments for `collect`, e.g. "--only transpose,banks"
#   GPUMEM_CI_GATE_ARGS  more arguments for `history gate`, e.g. "--allow-missing"
#   GPUMEM_CI_COMMIT_TIME   the commit's time for `history add`
#                        (default: git show -s --format=%ct HEAD)
#   GPUMEM_CI_POST       where the verdict goes: github (gh pr comment), gitlab (the
#                        merge request's notes API, with curl), or none (default)
#   GPUMEM_CI_PR         github: the pull request's number
#   GH_TOKEN             github: a token gh can post with (the workflow's)
#   GPUMEM_GITLAB_TOKEN  gitlab: a project access token with the api scope; the
#                        project and merge request come from CI_API_V4_URL,
#                        CI_PROJECT_ID and CI_MERGE_REQUEST_IID
#
# Exit status: 0 no regression (or main: stored); 1 a regression, a failed
# validation in this commit, runs missing from it or nothing paired; 2 cannot
# judge (no GPU, no history of this GPU and settings yet, bad input).
set -u

event=${1:?usage: gpumem-ci.sh main|pr}
bin=${GPUMEM_REPORT:-build/gpumem-report}
db=${GPUMEM_CI_DB:-gpumem-history.sqlite}
out=${GPUMEM_CI_OUT:-gpumem-out}
results=$out/results.json

say() { printf 'gpumem-ci: %s\n' "$*" >&2; }

[ -x "$bin" ] || { say "no $bin: run 'make build/gpumem-report' first"; exit 2; }
mkdir -p "$out" || exit 2

# 1. Collect (the GPU step).  collect exits 1 when a variant failed
# validation: the file is written whole, and the gate reports the failure.
if [ -n "${GPUMEM_CI_RESULTS:-}" ]; then
    say "results from $GPUMEM_CI_RESULTS (not collected here)"
    cp "$GPUMEM_CI_RESULTS" "$results" || exit 2
else
    # GPUMEM_CI_COLLECT_ARGS is split on spaces on purpose: several arguments.
    # shellcheck disable=SC2086
    "$bin" collect ${GPUMEM_CI_COLLECT_ARGS:-} --quiet --json "$results.part"
    rc=$?
    if [ "$rc" -gt 1 ] || [ ! -s "$results.part" ]; then
        rm -f "$results.part"
        say "collect failed (exit $rc)"
        exit 2
    fi
    mv "$results.part" "$results" || exit 2
fi

case $event in
main)
    # 2. The main branch: its runs become the history pull requests are judged by.
    t=${GPUMEM_CI_COMMIT_TIME:-$(git show -s --format=%ct HEAD)}
    "$bin" history add "$results" --db "$db" --commit-time "$t" || exit 2
    say "added to the history $db"
    exit 0
    ;;
pr) ;;
*)
    say "unknown event '$event': give main or pr"
    exit 2
    ;;
esac

# 3. A pull request: the gate against the history of this GPU and settings:
# counters against the latest main-branch run, times against the pooled
# samples of the last five (docs/history.md).
status=0
# shellcheck disable=SC2086
"$bin" history gate "$results" --db "$db" ${GPUMEM_CI_GATE_ARGS:-} \
    --out "$out/gate.md" --json "$out/gate.json" || status=$?
if [ "$status" -gt 1 ]; then
    say "cannot judge (history gate exit $status): has the main branch's job run on this runner?"
    exit 2
fi

# 4. The verdict on the pull request: the Markdown fits a comment (at most
# 60,000 characters; GitHub takes 65,536, GitLab 1,000,000).
case ${GPUMEM_CI_POST:-none} in
github)
    gh pr comment "${GPUMEM_CI_PR:?GPUMEM_CI_PR: the pull request's number}" \
        --body-file "$out/gate.md" || say "could not post the verdict"
    ;;
gitlab)
    curl --fail --silent --show-error --request POST \
        --header "PRIVATE-TOKEN: ${GPUMEM_GITLAB_TOKEN:?GPUMEM_GITLAB_TOKEN: a token with the api scope}" \
        --data-urlencode "body@$out/gate.md" \
        "$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests/$CI_MERGE_REQUEST_IID/notes" \
        >/dev/null || say "could not post the verdict"
    ;;
none) ;;
*) say "GPUMEM_CI_POST: '$GPUMEM_CI_POST' is not github, gitlab or none" ;;
esac

if [ "$status" = 0 ]; then
    say "no regression: $out/gate.md"
else
    say "regression: see $out/gate.md"
fi
exit "$status"

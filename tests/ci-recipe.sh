#!/bin/sh
# tests/ci-recipe.sh — the CI recipe of docs/ci.md run on recorded runs, without a
# GPU: the commands of examples/ci/github-actions.yml and examples/ci/gitlab-ci.yml
# (read from the YAML, their expressions filled in for a push to main and a pull or
# merge request), in a fresh workspace per job, with
#   - the GPU collect step replaced by a committed results file (GPUMEM_CI_RESULTS),
#   - the build step skipped (the binary under test is linked in),
#   - the cache kept in a folder between jobs (restored before each, saved after the
#     main branch's, as the workflows do),
#   - gh and curl replaced by scripts that record what they would post.
# The story: main stores one run of commit 603f537, a pull request with a second
# run of the same commit passes (GitHub); main stores the transpose and banks
# experiments, a merge request without the transpose's padding fails with one
# verdict, posted on the merge request (GitLab); a pull request with no history
# cannot be judged (exit 2).
#
#   sh tests/ci-recipe.sh [path/to/gpumem-report]
#
# Needs python3 with PyYAML to read the workflows (without it, or with
# GM_CI_NO_YAML=1, the steps are run as the workflows write them, from this
# script). Exit 0 when every check holds.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/gpumem-report}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
[ -x "$bin" ] || { echo "ci-recipe: no program at $bin" >&2; exit 2; }
fx=$here/tests/fixtures
t=$(mktemp -d "${TMPDIR:-/tmp}/gm-ci-XXXXXX") || exit 2
trap 'rm -rf "$t"' EXIT INT TERM
mkdir -p "$t/fake" "$t/cache" "$t/posted"
fails=0
check() {   # check WHAT COND...: count and report a failed condition
    what=$1
    shift
    if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}

# gh and curl that post nothing: their arguments and the body they would send.
cat >"$t/fake/gh" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" >"$GM_POSTED/gh.args"
while [ $# -gt 0 ]; do
    [ "$1" = --body-file ] && cp "$2" "$GM_POSTED/gh.body"
    shift
done
EOF
cat >"$t/fake/curl" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" >"$GM_POSTED/curl.args"
for a in "$@"; do
    case $a in body@*) cp "${a#body@}" "$GM_POSTED/curl.body" ;; esac
done
EOF
chmod +x "$t/fake/gh" "$t/fake/curl"

have_yaml=0
[ "${GM_CI_NO_YAML:-0}" = 1 ] || { python3 -c 'import yaml' 2>/dev/null && have_yaml=1; }

# steps CI EVENT: the job's commands as a shell script on standard output, from
# the workflow file; EVENT is main or pr.
steps() {
    python3 - "$here/examples/ci" "$1" "$2" <<'PY'
import os, re, shlex, sys, yaml
ci, kind, event = sys.argv[1:]
pr = event == "pr"
out = []
def export(env):
    for k, v in (env or {}).items():
        out.append("export %s=%s" % (k, shlex.quote(str(v))))
if kind == "github":
    wf = yaml.safe_load(open(os.path.join(ci, "github-actions.yml")))
    values = {
        "github.event_name == 'push' && 'history' || github.ref": "x",
        "github.token": "test-token",
        "github.event.pull_request.number": "101" if pr else "",
        "github.event_name == 'pull_request' && 'pr' || 'main'": event,
        "github.run_id": "1", "github.sha": "0" * 40,
        "github.event_name == 'push'": "false" if pr else "true",
    }
    def fill(text):
        def one(m):
            e = m.group(1).strip()
            if e not in values:
                sys.exit("ci-recipe: an expression the test does not know: " + e)
            return values[e]
        return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))
    job = wf["jobs"]["gpumem"]
    export({k: fill(v) for k, v in (job.get("env") or {}).items()})
    for st in job["steps"]:
        cond = str(st.get("if", "true")).strip()   # an expression, ${{ }} or not
        cond = re.sub(r"^\$\{\{(.*)\}\}$", r"\1", cond).strip()
        cond = {"true": "true", "always()": "true"}.get(cond) or values.get(cond)
        if cond is None:
            sys.exit("ci-recipe: a condition the test does not know: " + str(st.get("if")))
        if cond == "false":
            continue
        uses = st.get("uses", "")
        if uses.startswith("actions/cache/restore"):
            out.append('[ -f "$GM_CACHE/%s" ] && cp "$GM_CACHE/%s" .' % ((fill(st["with"]["path"]),) * 2))
        elif uses.startswith("actions/cache/save"):
            out.append('cp %s "$GM_CACHE/"' % shlex.quote(fill(st["with"]["path"])))
        elif "run" in st:
            cmd = fill(st["run"]).strip()
            if cmd.startswith("make "):
                continue   # the binary under test is linked in
            out.append("(")
            export({k: fill(v) for k, v in (st.get("env") or {}).items()})
            out.append(cmd)
            out.append(")")
else:
    doc = yaml.safe_load(open(os.path.join(ci, "gitlab-ci.yml")))
    name = "gpumem:mr" if pr else "gpumem:main"
    job = dict(doc[".gpumem"])
    for k, v in doc[name].items():
        if isinstance(v, dict) and isinstance(job.get(k), dict):
            job[k] = {**job[k], **v}
        else:
            job[k] = v
    rules = job["rules"][0]["if"]
    want = "merge_request_event" if pr else "CI_DEFAULT_BRANCH"
    if want not in rules:
        sys.exit("ci-recipe: %s does not run on %s: %s" % (name, event, rules))
    export(job.get("variables"))
    for p in job["cache"]["paths"]:
        out.append('[ -f "$GM_CACHE/%s" ] && cp "$GM_CACHE/%s" .' % (p, p))
    for cmd in job.get("before_script", []) + job["script"]:
        if cmd.startswith("make "):
            continue
        out.append(cmd)
    if "push" in job["cache"].get("policy", "pull-push"):
        for p in job["cache"]["paths"]:
            out.append('cp %s "$GM_CACHE/"' % p)
print("\n".join(out))
PY
}

# job CI EVENT RESULTS: run the job in a fresh workspace; its exit status.
job() {
    ws=$t/ws-$1-$2-$(basename "$3" .json)
    rm -rf "$ws" "$t/posted"/*
    mkdir -p "$ws/build" && ln -s "$here/examples" "$ws/examples" && ln -s "$bin" "$ws/build/gpumem-report"
    if [ $have_yaml = 1 ]; then
        steps "$1" "$2" >"$ws/.job.sh" || return 2
    elif [ "$1" = github ]; then
        printf '%s\n' '[ -f "$GM_CACHE/gpumem-history.sqlite" ] && cp "$GM_CACHE/gpumem-history.sqlite" .' \
            "GH_TOKEN=test-token GPUMEM_CI_POST=github GPUMEM_CI_PR=101 sh examples/ci/gpumem-ci.sh $2" \
            >"$ws/.job.sh"
        [ "$2" = main ] && echo 'cp gpumem-history.sqlite "$GM_CACHE/"' >>"$ws/.job.sh"
    else
        printf '%s\n' '[ -f "$GM_CACHE/gpumem-history.sqlite" ] && cp "$GM_CACHE/gpumem-history.sqlite" .' \
            "GPUMEM_CI_POST=$([ "$2" = pr ] && echo gitlab || echo none) sh examples/ci/gpumem-ci.sh $2" \
            >"$ws/.job.sh"
        [ "$2" = main ] && echo 'cp gpumem-history.sqlite "$GM_CACHE/"' >>"$ws/.job.sh"
    fi
    (
        cd "$ws" || exit 2
        PATH=$t/fake:$PATH GM_POSTED=$t/posted GM_CACHE=$t/cache \
            GPUMEM_CI_RESULTS=$3 GPUMEM_CI_COMMIT_TIME=$4 \
            GPUMEM_GITLAB_TOKEN=t0ken CI_API_V4_URL=https://gitlab.example/api/v4 \
            CI_PROJECT_ID=7 CI_MERGE_REQUEST_IID=5 \
            sh -e .job.sh >"$t/job.out" 2>&1
    )
    rc=$?
    cp "$t/job.out" "$t/last-$1-$2.out"
    cp "$ws/.job.sh" "$t/last-$1-$2.sh"
    return $rc
}

has() { grep -qF -- "$2" "$1" 2>/dev/null; }
lacks() { ! grep -qF -- "$2" "$1" 2>/dev/null; }
count_is() { [ "$(grep -cF -- "$2" "$1" 2>/dev/null)" = "$3" ]; }

[ $have_yaml = 1 ] || echo "ci-recipe: no PyYAML: running the steps as the workflows write them"

# GitHub: main stores a run; a pull request with a rerun of the same commit passes.
job github main "$fx/h100-rerun-0747.json" 1795000000
check "github main: stored (exit 0)" [ $? = 0 ]
check "github main: the history is in the cache" [ -s "$t/cache/gpumem-history.sqlite" ]
check "github main: posts nothing" [ ! -e "$t/posted/gh.args" ]
before=$(cksum <"$t/cache/gpumem-history.sqlite")
job github pr "$fx/h100-rerun-0757.json" 1795000060
rc=$?
check "github pr: the cache only read" [ "$before" = "$(cksum <"$t/cache/gpumem-history.sqlite")" ]
check "github pr, a rerun of the same commit: passes (exit $rc)" [ $rc = 0 ]
check "github pr: gh pr comment 101 --body-file" has "$t/posted/gh.args" "--body-file"
check "github pr: on pull request 101" sh -c "sed -n '1,3p' '$t/posted/gh.args' | tr '\n' ' ' | grep -q '^pr comment 101 '"
check "github pr: the verdict is posted" has "$t/posted/gh.body" "### gpumem-report history gate: pass: no regressions"
check "github pr: no regression in it" lacks "$t/posted/gh.body" "**regressed**"

# GitLab: main stores the transpose and banks experiments; a merge request
# without the padding fails with one verdict, posted as a note.
job gitlab main "$fx/h100-transpose-pad-base.json" 1795000120
check "gitlab main: stored (exit 0)" [ $? = 0 ]
before=$(cksum <"$t/cache/gpumem-history.sqlite")
job gitlab pr "$fx/h100-transpose-pad-head.json" 1795000180
rc=$?
check "gitlab mr, the padding removed: fails (exit $rc)" [ $rc = 1 ]
check "gitlab mr: posted to the merge request's notes" has "$t/posted/curl.args" "https://gitlab.example/api/v4/projects/7/merge_requests/5/notes"
check "gitlab mr: with the token" has "$t/posted/curl.args" "PRIVATE-TOKEN: t0ken"
check "gitlab mr: the verdict" has "$t/posted/curl.body" "### gpumem-report history gate: fail: 12 regressions in 1 layout"
check "gitlab mr: one verdict, the padded layout" count_is "$t/posted/curl.body" "**regressed** \`" 1
check "gitlab mr: ... which is transpose/padded" has "$t/posted/curl.body" "**regressed** \`transpose\` \`padded\`: "
check "gitlab mr: the results and the verdict kept (artifacts)" [ -s "$t/ws-gitlab-pr-h100-transpose-pad-head/gpumem-out/gate.json" ]
check "gitlab mr: the cache only read" [ "$before" = "$(cksum <"$t/cache/gpumem-history.sqlite")" ]

# No history yet: cannot judge.
rm -f "$t/cache/gpumem-history.sqlite"
job github pr "$fx/h100-rerun-0757.json" 1795000240
rc=$?
check "github pr with no history: cannot judge (exit $rc)" [ $rc = 2 ]
check "github pr with no history: posts nothing" [ ! -e "$t/posted/gh.args" ]

if [ "$fails" != 0 ]; then
    for f in "$t"/last-*.out; do
        echo "--- $f"
        cat "$f"
    done
    echo "ci-recipe: $fails check(s) failed"
    exit 1
fi
echo "ci-recipe: every check holds"

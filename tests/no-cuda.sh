#!/bin/sh
# tests/no-cuda.sh BIN SRCDIR: the program where no CUDA library can be found.
#
# render, diff, merge, history, list --metrics and --version must work on a
# machine without the CUDA toolkit (libcupti is opened only when collecting:
# collectors/gmc_cupti_load.h), and collecting must say plainly what is
# missing.  The program must not name any toolkit library as needed (what
# `ldd` would list), and then it runs in a mount namespace (unshare -rm) with
# an empty tmpfs over every /usr/local/cuda* directory and $GM_CUDA_HOME,
# LD_LIBRARY_PATH and CUDA_HOME unset.
# Exit 0: passed; 1: failed (what, on stdout); 77: cannot hide the toolkit
# here (why, on stdout).
set -u
bin=${1:?usage: no-cuda.sh BIN SRCDIR}
src=${2:?usage: no-cuda.sh BIN SRCDIR}
fail() { echo "no-cuda: $*"; exit 1; }

# 1. no toolkit library among what the program needs
if command -v readelf >/dev/null 2>&1; then
    needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    for lib in $needed; do
        case $lib in
            libcupti*|libcudart*|libnvperf*|libcuda.so*|libnvrtc*|libcheckpoint*)
                fail "$bin needs $lib: it would not start without the toolkit" ;;
        esac
    done
else
    echo "no-cuda: readelf not found: the program's needed libraries not checked"
fi

# 2. the toolkit hidden
hide=""
for d in /usr/local/cuda* ${GM_CUDA_HOME:-}; do
    [ -d "$d" ] || continue
    r=$(cd "$d" && pwd -P)
    case " $hide " in *" $r "*) ;; *) hide="$hide $r" ;; esac
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gm-nocuda-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
command -v unshare >/dev/null 2>&1 || { echo "unshare (util-linux) not found"; exit 77; }
unshare -rm true 2>/dev/null || { echo "unshare -rm: no user and mount namespaces here"; exit 77; }

cat >"$tmp/run.sh" <<'INNER'
set -u
bin=$1 src=$2 tmp=$3
shift 3
for d in "$@"; do
    mount -t tmpfs none "$d" || { echo "cannot mount over $d"; exit 77; }
done
unset LD_LIBRARY_PATH CUDA_HOME CUDA_PATH
for d in "$@"; do
    [ -z "$(ls -A "$d")" ] || { echo "no-cuda: $d still shows files"; exit 1; }
done
fail() { echo "no-cuda: $*"; exit 1; }
f=$src/tests/fixtures/diff-base.json
g=$src/tests/fixtures/diff-head.json
"$bin" --version >"$tmp/out" 2>&1 || fail "--version: $(cat "$tmp/out")"
grep -q '^gpumem-report ' "$tmp/out" || fail "--version printed: $(cat "$tmp/out")"
"$bin" list --metrics >"$tmp/out" 2>&1 || fail "list --metrics: $(cat "$tmp/out")"
grep -q 'dram__bytes_read.sum' "$tmp/out" || fail "list --metrics printed no catalogue"
"$bin" render "$f" --out "$tmp/r.md" >"$tmp/out" 2>&1 || fail "render: $(cat "$tmp/out")"
grep -q '^# GPU memory report' "$tmp/r.md" || fail "render wrote no report"
"$bin" diff "$f" "$g" --out "$tmp/d.md" >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || fail "diff exit $rc: $(cat "$tmp/out")"
grep -q 'gpumem-report diff' "$tmp/d.md" || fail "diff wrote no diff"
"$bin" merge "$f" "$g" --json "$tmp/m.json" >"$tmp/out" 2>&1 || fail "merge: $(cat "$tmp/out")"
[ -s "$tmp/m.json" ] || fail "merge wrote nothing"
"$bin" history add "$f" --db "$tmp/h.sqlite" >"$tmp/out" 2>&1 || fail "history add: $(cat "$tmp/out")"
"$bin" history report --db "$tmp/h.sqlite" >"$tmp/out" 2>&1 || fail "history report: $(cat "$tmp/out")"
"$bin" history export --format csv --db "$tmp/h.sqlite" >"$tmp/out" 2>&1 ||
    fail "history export: $(cat "$tmp/out")"
"$bin" history gate "$g" --db "$tmp/h.sqlite" >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || fail "history gate exit $rc: $(cat "$tmp/out")"
# collecting says what is missing (or, built without the toolkit, that it cannot)
"$bin" collect --json "$tmp/c.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 2 ] || fail "collect without CUPTI: exit $rc: $(cat "$tmp/out")"
grep -q "collecting needs the CUDA .* toolkit's CUPTI (libcupti.so.*): not found; render, diff, merge and history work without it" "$tmp/out" ||
    grep -q 'built without the CUDA toolkit' "$tmp/out" ||
    fail "collect without CUPTI said: $(cat "$tmp/out")"
"$bin" collect --help >"$tmp/out" 2>&1 || fail "collect --help: $(cat "$tmp/out")"
exit 0
INNER
# shellcheck disable=SC2086
unshare -rm sh "$tmp/run.sh" "$bin" "$src" "$tmp" $hide

#!/bin/sh
# check-layers: fail when a source file includes across the layers of
# docs/architecture.md.
#   core/                         includes only core/ (and the C library)
#   kernels/, collectors/         include core/ and their own folder (an experiment's
#                                 folder kernels/<experiment>/ counts as kernels/)
#   reports/                      includes core/ and reports/
#   orchestrate/                  includes core/, kernels/, collectors/, reports/ and
#                                 its own folder (the processes of a run, between
#                                 cli/ and the rest)
#   cli/                          includes anything
# core/, reports/ and orchestrate/ never include the CUDA toolkit (cuda*.h, cupti*.h, nvperf*.h);
# in kernels/ and collectors/ only the files that launch kernels or talk to
# CUPTI do (the .cu files and the list in $toolkit below), directly or through
# harness.h, gmc_codes.h or gmc_cupti_host.h (by any path: "../harness.h" from
# kernels/<experiment>/): everything else builds without
# the toolkit (make CUDA_HOME=/nonexistent test).
# The table of docs/architecture.md ("What each folder may include") is printed
# from the lists here (--table) and must be the one between its markers
# (<!-- layers: ... --> and <!-- /layers -->); --write-doc puts it there.
# Run from the repository root; prints each offence as file:line and exits 1.
bad=0
# what each folder may include (quoted includes); cli/ includes anything
allowed_of() {
    case $1 in
        core) echo "core" ;;
        kernels) echo "core kernels" ;;
        collectors) echo "core collectors" ;;
        reports) echo "core reports" ;;
        orchestrate) echo "core kernels collectors reports orchestrate" ;;
    esac
}
toolkit="kernels/harness.h kernels/runner.c collectors/gmc_cupti.c collectors/gmc_codes.c
         collectors/gmc_codes.h collectors/gmc_cupti_host.h collectors/inject.c
         collectors/inject_batch.c collectors/inject_internal.h collectors/inject_launch.c
         collectors/inject_nvtx.c collectors/inject_session.c collectors/gmc_sass.c
         collectors/gmc_trace.c collectors/gmc_cupti_load.c collectors/inject_graph.c
         collectors/inject_timed.c collectors/trace_mode.c collectors/inject_replay.c"
# The Markdown table of docs/architecture.md, from the lists above.
table() {
    echo '| folder | may include (quoted `#include "..."`) | the CUDA toolkit (`<cuda*.h>`, `<cupti*.h>`, ...) |'
    echo '|---|---|---|'
    for d in core kernels collectors reports orchestrate; do
        inc=$(for a in $(allowed_of $d); do printf '`%s/`, ' "$a"; done | sed 's/, $//')
        files=$(for t in $toolkit; do case $t in $d/*) printf '`%s`, ' "${t#$d/}" ;; esac; done |
                sed 's/, $//')
        if [ "$d" = kernels ]; then name='`kernels/` (its experiment folders too)'
        else name="\`$d/\`"; fi
        if [ -n "$files" ]; then tk="only \`*.cu\`, $files"; else tk=never; fi
        echo "| $name | $inc | $tk |"
    done
    echo '| `cli/` | anything | as needed (`#ifdef GM_HAVE_CUDA`) |'
}
doc=docs/architecture.md
case ${1:-} in
    --table) table; exit 0 ;;
    --write-doc)
        t=$(mktemp)
        table > "$t.t"
        awk -v t="$t.t" '/^<!-- layers: /{print; while ((getline l < t) > 0) print l; skip=1; next}
                         /^<!-- \/layers -->/{skip=0} !skip' "$doc" > "$t" && cat "$t" > "$doc"
        rm -f "$t" "$t.t"
        exit 0 ;;
esac
t=$(mktemp)
table > "$t.want"
sed -n '/^<!-- layers: /,/^<!-- \/layers -->/p' "$doc" | sed '1d;$d' > "$t.doc"
if ! cmp -s "$t.want" "$t.doc"; then
    echo "$doc: its table of what each folder may include is not check-layers.sh's:"
    diff "$t.want" "$t.doc"
    echo "(sh tests/check-layers.sh --write-doc rewrites it)"
    echo x >> "${TMPDIR:-/tmp}/gm-layers.$$"
fi
rm -f "$t" "$t.want" "$t.doc"
for f in $(find core kernels collectors reports orchestrate -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' | sort); do
    dir=${f%%/*}
    allowed=$(allowed_of "$dir")
    # quoted includes, resolved against the including file's folder
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r hit; do
        line=${hit%%:*}
        inc=$(printf '%s\n' "$hit" | sed 's/^[^"]*"\([^"]*\)".*/\1/')
        target=$(realpath -m --relative-to=. "$(dirname "$f")/$inc")
        top=${target%%/*}
        [ "$target" = "$top" ] && top=.
        ok=0
        for a in $allowed; do [ "$top" = "$a" ] && ok=1; done
        if [ $ok = 0 ]; then
            echo "$f:$line: includes $inc ($target): $dir/ may include only: $allowed"
            echo x >> "${TMPDIR:-/tmp}/gm-layers.$$"
        fi
    done
    case $dir in core|reports|orchestrate)
        if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(cuda|cupti|nvperf|nvToolsExt|nvtx)' "$f"; then
            echo "$f: $dir/ must build without the CUDA toolkit"
            echo x >> "${TMPDIR:-/tmp}/gm-layers.$$"
        fi ;;
    kernels|collectors)
        case $f in *.cu|*.cuh) continue ;; esac
        case " $(echo $toolkit) " in *" $f "*) continue ;; esac
        if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*(<(cuda|cupti|nvperf|nvToolsExt|nvtx|driver_types)|"([^"]*/)?(harness|gmc_codes|gmc_cupti_host)\.h")' "$f"; then
            echo "$f: builds without the CUDA toolkit (only the files in check-layers.sh's list may include it)"
            echo x >> "${TMPDIR:-/tmp}/gm-layers.$$"
        fi ;;
    esac
done
# every core/ header declares C linkage, so the .cu files include them as they are
for h in core/*.h; do
    if ! grep -q 'extern "C"' "$h"; then
        echo "$h: no extern \"C\" guard (#ifdef __cplusplus extern \"C\" { #endif)"
        echo x >> "${TMPDIR:-/tmp}/gm-layers.$$"
    fi
done
if [ -e "${TMPDIR:-/tmp}/gm-layers.$$" ]; then
    rm -f "${TMPDIR:-/tmp}/gm-layers.$$"
    echo "check-layers: includes cross the layers (docs/architecture.md)"
    exit 1
fi
echo "check-layers: core <- kernels, collectors, reports <- orchestrate <- cli: no include crosses a layer"

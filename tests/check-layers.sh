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
# Run from the repository root; prints each offence as file:line and exits 1.
bad=0
toolkit="kernels/harness.h kernels/runner.c collectors/gmc_cupti.c collectors/gmc_codes.c
         collectors/gmc_codes.h collectors/gmc_cupti_host.h collectors/inject.c
         collectors/inject_batch.c collectors/inject_internal.h collectors/inject_launch.c
         collectors/inject_nvtx.c collectors/inject_session.c collectors/gmc_sass.c
         collectors/gmc_trace.c collectors/gmc_cupti_load.c collectors/inject_graph.c
         collectors/inject_timed.c collectors/trace_mode.c"
for f in $(find core kernels collectors reports orchestrate -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' | sort); do
    dir=${f%%/*}
    case $dir in
        core) allowed="core" ;;
        kernels) allowed="core kernels" ;;
        collectors) allowed="core collectors" ;;
        reports) allowed="core reports" ;;
        orchestrate) allowed="core kernels collectors reports orchestrate" ;;
    esac
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

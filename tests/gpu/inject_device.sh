#!/bin/sh
# inject_device.sh OUT — one batch on a GPU machine for `gpumem-report -- PROGRAM`:
# builds what is missing, runs the example lab under the tool with the
# library's trace on (a smoke run whose stderr says what the callbacks saw),
# the GPU test tests/gpu/inject_vs_ncu (output, exit status, counters against
# ncu, wall times), and the example report (examples/app/).  Everything lands
# in OUT (one tarball, for a machine that gives back few files).
# Run from the repository root, after `source .deps/use-deps` where the
# report's libraries are not installed.
out=${1:?usage: inject_device.sh OUT}
mkdir -p "$out/logs"
log=$out/logs
need="build/gpumem-report build/libgpumem-inject.so build/examples/app/lab build/tests/gpu/inject_vs_ncu"
ok=1
for f in $need; do build/gpumem-report --version >/dev/null 2>&1 && [ -x "$f" ] || ok=0; done
if [ $ok = 0 ]; then
    make -j16 $need > "$log/build.txt" 2>&1 || { tail -30 "$log/build.txt"; exit 2; }
fi
{
    date -u +%Y-%m-%dT%H:%M:%SZ
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
    /usr/local/cuda/bin/ncu --version | tail -1
} > "$log/device.txt" 2>&1
cat "$log/device.txt"

echo "== smoke: the lab under the tool, library trace on"
build/examples/app/lab > "$log/smoke-plain.out" 2>&1; echo "lab alone: $?"
GPUMEM_REPORT_DEBUG=1 timeout 90 build/gpumem-report collect --launches each \
    --json "$log/smoke.json" -- build/examples/app/lab > "$log/smoke-tool.out" 2> "$log/smoke.err"
echo "lab under the tool: $?"
cmp "$log/smoke-plain.out" "$log/smoke-tool.out" && echo "same stdout"
grep -v "debug: runtime" "$log/smoke.err" | head -40

if [ -s "$log/smoke.json" ]; then
    echo "== the GPU test"
    GMI_TEST_OUT="$log/test" timeout 300 build/tests/gpu/inject_vs_ncu > "$log/inject_vs_ncu.txt" 2>&1
    echo "inject_vs_ncu: $?"
    grep -E "^(FAIL|ok  )|passed,|==|x the lab|per launch|device:" "$log/inject_vs_ncu.txt" | grep -v "^ok  launch" | head -60
    echo "== the example report"
    mkdir -p "$out/example"
    ( cd "$out/example" && timeout 90 "$OLDPWD/build/gpumem-report" --out report.html \
        --json run.json -- "$OLDPWD/build/examples/app/lab" > lab.out 2> tool.err; echo "example: $?" )
    tail -3 "$out/example/tool.err"
fi
rm -f "$log"/test/ncu-*.csv.gz
tar czf "$out/inject.tar.gz" -C "$out" logs $( [ -d "$out/example" ] && echo example )
ls -la "$out"

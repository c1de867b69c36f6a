#!/bin/sh
# programs-aa.sh OUT [N] — on the GPU machine, after `make`: N (default 10) collections of each
# of two programs by one commit (the lab, build/examples/app/lab, and examples/pytorch/layouts.py),
# counters and times (--no-source-lines), into OUT/aa-lab/run-K.json and OUT/aa-py/run-K.json,
# for bench/gate-aa.sh to gate each against the others (on any machine).
set -u
O=${1:?usage: programs-aa.sh OUT [N]}
N=${2:-10}
GR=./build/gpumem-report
mkdir -p "$O/aa-lab" "$O/aa-py"
k=1
while [ "$k" -le "$N" ]; do
    timeout 60 $GR collect --no-source-lines --json "$O/aa-lab/run-$k.json" \
        -- ./build/examples/app/lab > "$O/aa-lab/log-$k" 2>&1
    timeout 120 $GR collect --no-source-lines --json "$O/aa-py/run-$k.json" \
        -- python3 examples/pytorch/layouts.py 2 > "$O/aa-py/log-$k" 2>&1
    echo "programs-aa $k: lab rc $? $(ls "$O"/aa-lab/run-$k.json "$O"/aa-py/run-$k.json 2>/dev/null | wc -l) files"
    k=$((k + 1))
done

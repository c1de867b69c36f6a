#!/bin/bash
# launch-gate.sh — short kernels timed without and with the launch gate, on an
# idle host and on a host whose every core is busy, against the profiler's own
# duration of the same launches.  Without the gate the GPU reaches a start
# event before the host has submitted the launch it times, and the sample
# holds the host's time; with it, repetitions are released together.
#   bench/launch-gate.sh OLD NEW [EXPERIMENTS]   (on the GPU machine)
# OLD, NEW: gpumem-report binaries without and with the gate; EXPERIMENTS:
# --only list (default matmul,alignment,banks).  Prints every run whose
# median is under 50 µs in any setting, then a summary.
set -eu
old=${1:?usage: launch-gate.sh OLD NEW [EXPERIMENTS]}
new=${2:?usage: launch-gate.sh OLD NEW [EXPERIMENTS]}
only=${3:-matmul,alignment,banks}
tmp=$(mktemp -d)
busy_pids=""
stop_busy() { [ -n "$busy_pids" ] && kill $busy_pids 2>/dev/null; busy_pids=""; }
trap 'stop_busy; rm -rf "$tmp"' EXIT
echo "date:   $(date -u +%Y-%m-%dT%H:%M:%SZ)"
command -v nvidia-smi >/dev/null && echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i 0)"
echo "host:   $(nproc) cores; busy = one spinning shell per core"
echo "old:    $("$old" --version | head -n 1)"
echo "new:    $("$new" --version | head -n 1)"
for load in idle busy; do
    if [ "$load" = busy ]; then
        for _ in $(seq "$(nproc)"); do (while :; do :; done) & busy_pids="$busy_pids $!"; done
    fi
    for side in old new; do
        bin=$old; [ "$side" = new ] && bin=$new
        "$bin" collect --only "$only" --no-profile --no-source-lines --quiet \
            --json "$tmp/$side-$load.json"
    done
    stop_busy
done
"$new" collect --only "$only" --no-source-lines --quiet --json "$tmp/profiled.json"
python3 - "$tmp" <<'PY'
import json, statistics, sys
d = sys.argv[1]
def load(name):
    r = json.load(open(f"{d}/{name}.json"))
    out = {}
    for x in r["runs"]:
        key = (x["experiment"], x["variant"], json.dumps(x["params"], sort_keys=True))
        t = x.get("timing")
        m = (x.get("metrics") or {}).get("gpu__time_duration.sum")
        out[key] = (t["median"] * 1e3 if t and t.get("median") is not None else None,
                    t.get("gated", False) if t else False,
                    m["value"] / 1e3 if m and m.get("value") is not None else None)
    return out
sets = {n: load(n) for n in ["old-idle", "old-busy", "new-idle", "new-busy", "profiled"]}
keys = [k for k in sets["new-idle"] if all(sets[n].get(k, (None,))[0] is not None for n in sets)]
short = [k for k in keys if min(sets[n][k][0] for n in sets) < 50]
print("%-10s %-20s %-22s %9s %9s %9s %9s %9s" % ("experiment", "variant", "params", "old idle",
      "old busy", "new idle", "new busy", "duration"))
print("%-10s %-20s %-22s %9s %9s %9s %9s %9s" % ("", "", "", "us", "us", "us", "us", "us (ncu's)"))
for k in short:
    v = [sets[n][k][0] for n in ["old-idle", "old-busy", "new-idle", "new-busy"]]
    dur = sets["profiled"][k][2]
    g = "" if sets["new-idle"][k][1] else "  (not gated)"
    print("%-10s %-20s %-22s %9.2f %9.2f %9.2f %9.2f %9s%s" % (k[0], k[1][:20], k[2][:22], *v,
          "%.2f" % dur if dur is not None else "-", g))
def ratio(a, b):
    return statistics.median(sets[b][k][0] / sets[a][k][0] for k in short)
print()
print("runs under 50 us: %d of %d timed; gated in the new binary: %d of %d" % (
    len(short), len(keys), sum(sets["new-idle"][k][1] for k in keys), len(keys)))
print("median over them of busy / idle:  old %.2fx   new %.2fx" % (ratio("old-idle", "old-busy"),
      ratio("new-idle", "new-busy")))
print("median over them of new / old:    idle %.2fx   busy %.2fx" % (ratio("old-idle", "new-idle"),
      ratio("old-busy", "new-busy")))
dd = [sets["new-idle"][k][0] - sets["profiled"][k][2] for k in short if sets["profiled"][k][2]]
do = [sets["old-idle"][k][0] - sets["profiled"][k][2] for k in short if sets["profiled"][k][2]]
if dd:
    print("median over them of time - duration (idle):  old %+.2f us   new %+.2f us" % (
        statistics.median(do), statistics.median(dd)))
tiny = [k for k in short if sets["profiled"][k][2] is not None and sets["profiled"][k][2] < 5]
for load in ["idle", "busy"]:
    if tiny:
        print("runs whose duration is under 5 us (%d), median of time - duration, %s:  old %+.2f us"
              "   new %+.2f us" % (len(tiny), load,
              statistics.median(sets["old-" + load][k][0] - sets["profiled"][k][2] for k in tiny),
              statistics.median(sets["new-" + load][k][0] - sets["profiled"][k][2] for k in tiny)))
PY

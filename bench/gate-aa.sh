#!/bin/sh
# gate-aa.sh DIR [BIN] — does the gate stay quiet on noise and catch real changes?
# DIR holds run-1.json ... run-N.json, N collections of one commit on one GPU
# (bench/device-final.sh makes ten of the quick suite).  Prints, with the defaults a user
# gets:
#   - A/A: `diff` of each run against the next (N pairs, the last against the first)
#     and `history gate` of each run against a history of the others: the exit
#     status of each, and how many failed (the goal: none);
#   - injected: run-1 against a copy of itself with every timing sample 5 % longer, and
#     against a copy where one layout's global loads fetch one more sector per request
#     (the sectors raised by the requests): both must fail the gate (exit 1).
set -u
dir=${1:?usage: gate-aa.sh DIR [BIN]}
bin=${2:-./build/gpumem-report}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=$(ls "$dir"/run-*.json | sort -t- -k2 -n)
n=$(echo "$runs" | wc -l)
echo "# gate-aa.sh: $n runs in $dir; $($bin --version)"
python3 - "$dir/run-1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("# device: %s, driver %s; commit %s; taken %s" % (d["device"]["name"],
      d["device"]["driver_version"], d.get("commit"), d.get("taken_at")))
PY
fails=0
i=0
first=$(echo "$runs" | head -1)
prev=
for r in $runs $first; do
    if [ -n "$prev" ]; then
        i=$((i + 1))
        "$bin" diff "$prev" "$r" --out "$tmp/d$i.md" >/dev/null 2>&1
        rc=$?
        echo "A/A diff $(basename "$prev") -> $(basename "$r"): exit $rc ($(sed -n 1p "$tmp/d$i.md" | cut -c1-90))"
        [ "$rc" -ne 0 ] && fails=$((fails + 1))
    fi
    prev=$r
done
echo "A/A diff: $fails of $i pairs failed"
gfails=0
k=0
for head in $runs; do
    k=$((k + 1))
    db=$tmp/h$k.sqlite
    t=1000
    for r in $runs; do
        [ "$r" = "$head" ] && continue
        t=$((t + 1))
        "$bin" history add "$r" --db "$db" --commit-time "$t" >/dev/null 2>&1
    done
    "$bin" history gate "$head" --db "$db" --out "$tmp/g$k.md" >/dev/null 2>&1
    rc=$?
    echo "A/A history gate $(basename "$head") against the other $((n - 1)): exit $rc ($(sed -n 1p "$tmp/g$k.md" | cut -c1-80))"
    [ "$rc" -ne 0 ] && gfails=$((gfails + 1))
done
echo "A/A history gate: $gfails of $k failed"
python3 - "$first" "$tmp/slow.json" "$tmp/sector.json" <<'PY'
import json, sys
src, slow, sector = sys.argv[1:4]
d = json.load(open(src))
for r in d["runs"]:
    t = r.get("timing")
    if t:
        for k in ("min", "q1", "median", "q3", "max"):
            if isinstance(t.get(k), (int, float)):
                t[k] *= 1.05
        if isinstance(t.get("samples"), list):
            t["samples"] = [x * 1.05 for x in t["samples"]]
json.dump(d, open(slow, "w"))
d = json.load(open(src))
SEC = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
REQ = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
SPR = "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"
done = None
for r in d["runs"]:
    m = r.get("metrics") or {}
    sec, req = m.get(SEC), m.get(REQ)
    if isinstance(sec, dict) and isinstance(req, dict) and isinstance(sec.get("value"), int) \
            and isinstance(req.get("value"), int) and req["value"] > 0:
        sec["value"] += req["value"]
        if isinstance(m.get(SPR), dict) and isinstance(m[SPR].get("value"), (int, float)):
            m[SPR]["value"] = sec["value"] / req["value"]
        done = "%s/%s" % (r.get("experiment"), r.get("variant"))
        break
json.dump(d, open(sector, "w"))
print("# injected: every timing sample x1.05; one more global-load sector per request in %s" % done)
PY
for inj in slow sector; do
    "$bin" diff "$first" "$tmp/$inj.json" --out "$tmp/$inj.md" >/dev/null 2>&1
    rc=$?
    echo "injected $inj: diff exit $rc ($(sed -n 1p "$tmp/$inj.md" | cut -c1-100))"
done

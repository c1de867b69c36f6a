#!/usr/bin/env python3
"""compare_runs.py A.json B.json [LABEL] — how B's timings and counters differ from A's, run by
run (same experiment, variant and parameters): the ratio of each timed run's median time to
A's (median, mean, extremes, runs off by more than 5 %, the six furthest), whether every
counter that is a count (sectors, requests, wavefronts, instructions, bank conflicts) is
equal, and the largest relative difference of the DRAM bytes.  Used by bench/ctx-overlap.py
and bench/suite-lines.sh; exit status 0.
"""
import json
import statistics
import sys

COUNTS = ("sectors", "requests", "wavefronts", "inst_executed", "bank_conflicts")


def key(r):
    return (r["experiment"], r["variant"], json.dumps(r["params"], sort_keys=True))


def compare(x, y, label):
    """Lines saying how y's timings and counters differ from x's."""
    out = []
    rx = {key(r): r for r in x["runs"]}
    ratios, worst, cnt_bad, cnt_all, dram = [], [], 0, 0, []
    for r in y["runs"]:
        o = rx.get(key(r))
        if not o or not r.get("timing") or not o.get("timing"):
            continue
        q = r["timing"]["median"] / o["timing"]["median"]
        ratios.append(q)
        worst.append((abs(q - 1), q, "%s/%s %s" % (r["experiment"], r["variant"], r["params"])))
        for m, v in (r.get("metrics") or {}).items():
            w = (o.get("metrics") or {}).get(m)
            if not w:
                continue
            if any(c in m for c in COUNTS) and m.endswith(".sum"):
                cnt_all += 1
                cnt_bad += v["value"] != w["value"]
            if m.startswith("dram__bytes_") and w["value"] > 1e6:
                dram.append(abs(v["value"] / w["value"] - 1))
    worst.sort(reverse=True)
    out.append("\n%s: %d timed runs; median-time ratio: median %.4f, mean %.4f, min %.3f, max %.3f; "
        "runs off by more than 5%%: %d" % (label, len(ratios), statistics.median(ratios),
                                           statistics.mean(ratios), min(ratios), max(ratios),
                                           sum(1 for q in ratios if abs(q - 1) > 0.05)))
    out.append("  counts equal: %d of %d; DRAM bytes (runs over 1 MB): largest difference %.1f %%, "
        "median %.2f %%" % (cnt_all - cnt_bad, cnt_all, 100 * max(dram or [0]),
                             100 * statistics.median(dram or [0])))
    for _, q, n in worst[:6]:
        out.append("  %.3f  %s" % (q, n))
    return out


if __name__ == "__main__":
    a = json.load(open(sys.argv[1]))
    b = json.load(open(sys.argv[2]))
    print("\n".join(compare(a, b, sys.argv[3] if len(sys.argv) > 3 else "B against A")))

#!/usr/bin/env python3
"""diff-noise.py — how far the counters move between runs of the same kernels.

Compares every pair of the results files given (runs paired by experiment,
variant and parameters, as `gpumem-report diff` pairs them) and prints, per
metric, the largest change measured, in the terms of diff's default policy
(reports/diff.h): per shared instruction for bank conflicts and wavefronts,
bytes for DRAM bytes, points for percentages, relative for the rest.  The
defaults must sit above these numbers.

    bench/diff-noise.py [--skip FILE=EXP/VARIANT]... FILE...

--skip leaves a variant of one file out of every pair that file is in (a run
that a deliberate code change touched).  Standard library only.
"""
import itertools
import json
import sys

SHARED = {  # metric -> the shared instruction count of its direction
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "smsp__inst_executed_op_shared_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "smsp__inst_executed_op_shared_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "smsp__inst_executed_op_shared_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "smsp__inst_executed_op_shared_st.sum",
}
DRAM_BYTES = ("dram__bytes_read.sum", "dram__bytes_write.sum")
DRAM_RATE = "dram__bytes.sum.per_second"
PCT = ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "l1tex__t_sector_hit_rate.pct",
       "lts__t_sector_hit_rate.pct", "sm__warps_active.avg.pct_of_peak_sustained_active")
DURATION = "gpu__time_duration.sum"
VARYING = set(SHARED) | set(DRAM_BYTES) | {DRAM_RATE, DURATION} | set(PCT)


def key(run):
    return (run["experiment"], run["variant"], tuple(sorted(run["params"].items())))


def name(k):
    return "%s/%s %s" % (k[0], k[1], ",".join("%s=%s" % p for p in k[2]))


def num(metrics, m):
    v = metrics.get(m, {}).get("value")
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def main(argv):
    skip, files = {}, []
    it = iter(argv)
    for a in it:
        if a == "--skip":
            f, _, var = next(it).partition("=")
            skip.setdefault(f, set()).add(var)
        else:
            files.append(a)
    data = {f: json.load(open(f)) for f in files}
    short = {f: f.rsplit("/", 1)[-1] for f in files}

    # metric -> list of (score, text); score is what the default compares
    worst = {}
    beyond = {}       # extra tallies
    exact_pairs = exact_diff = 0
    n_pairs = {}

    def note(m, score, text):
        worst.setdefault(m, []).append((score, text))

    for fa, fb in itertools.combinations(files, 2):
        runs_b = {key(r): r for r in data[fb]["runs"]}
        pairs = 0
        for ra in data[fa]["runs"]:
            k = key(ra)
            rb = runs_b.get(k)
            v = "%s/%s" % (k[0], k[1])
            if rb is None or v in skip.get(fa, ()) or v in skip.get(fb, ()):
                continue
            pairs += 1
            where = "%s, %s vs %s" % (name(k), short[fa], short[fb])
            ta, tb = ra.get("timing") or {}, rb.get("timing") or {}
            if ta.get("median") and tb.get("median"):
                rel = tb["median"] / ta["median"] - 1
                note("time", abs(rel), "%+.1f %% (%.4g -> %.4g ms), %s" %
                     (100 * rel, ta["median"], tb["median"], where))
                if abs(rel) > 0.05:
                    tiny = (k[0] == "matmul" and dict(k[2]).get("n", 1 << 30) <= 96) or \
                        k[:2] == ("dp", "cpu_serial")
                    beyond.setdefault("time", []).append(
                        (abs(rel), "%+.1f %%, %s" % (100 * rel, where), tiny))
            ma, mb = ra.get("metrics") or {}, rb.get("metrics") or {}
            for m in ma:
                a, b = num(ma, m), num(mb, m)
                if a is None or b is None:
                    continue
                d = b - a
                if m in SHARED:
                    n = max(num(ma, SHARED[m]) or 0, num(mb, SHARED[m]) or 0)
                    if n:
                        note(m, abs(d) / n, "%.4f per instruction (%+d of %d -> %d, %d inst), %s"
                             % (abs(d) / n, d, a, b, n, where))
                elif m in DRAM_BYTES:
                    note(m, abs(d), "%d bytes (%d -> %d), %s" % (abs(d), a, b, where))
                    if abs(d) > 0.02 * abs(a):
                        beyond.setdefault(m, []).append(
                            (abs(d), "%d bytes (%d -> %d, %+.0f %%), %s" %
                             (abs(d), a, b, 100 * d / a if a else float("inf"), where)))
                elif m == DRAM_RATE:
                    rel = abs(d) / a if a else float("inf")
                    note(m, rel, "%+.3g (%.4g -> %.4g B/s), %s" % (d / a if a else float("inf"),
                                                                    a, b, where))
                    if rel > 0.10:
                        beyond.setdefault(m, []).append(
                            (abs(d), "%.3g B/s (%.4g -> %.4g), %s" % (abs(d), a, b, where)))
                elif m in PCT:
                    note(m, abs(d), "%.2f points (%.2f -> %.2f), %s" % (abs(d), a, b, where))
                elif m == DURATION:
                    note(m, abs(d) / a if a else 0, "%+.1f %% (%d -> %d ns), %s" %
                         (100 * d / a if a else 0, a, b, where))
                elif m not in VARYING:
                    exact_pairs += 1
                    if d != 0 and abs(d) > 1e-12 * max(abs(a), abs(b)):
                        exact_diff += 1
                        note("(deterministic) " + m, abs(d), "%s -> %s, %s" % (a, b, where))
        n_pairs["%s vs %s" % (short[fa], short[fb])] = pairs

    print("# diff-noise.py: largest change per metric between runs of the same kernels")
    print("# command: bench/diff-noise.py " + " ".join(sys.argv[1:]))
    for f in files:
        d = data[f]
        dev = d["device"]
        print("# %s: %s, driver %s, taken %s, commit %s%s, %d runs%s" % (
            short[f], dev["name"], dev["driver_version"], d["taken_at"], (d["commit"] or "?")[:12],
            " (dirty)" if d.get("dirty") else "", len(d["runs"]),
            "; left out: " + ", ".join(sorted(skip[f])) if f in skip else ""))
    for p, n in n_pairs.items():
        print("# pair %s: %d runs" % (p, n))
    print("#")
    print("# deterministic counts (global sectors, requests, instructions, shared instructions,")
    print("# sectors/request, efficiency): %d values compared, %d differ beyond rounding" %
          (exact_pairs, exact_diff))
    for m in sorted(worst):
        rows = sorted(worst[m], key=lambda x: -x[0])
        print("\n%s (%d values)" % (m, len(rows)))
        for _, text in rows[:3]:
            print("  " + text)
        if m in beyond:
            b = sorted(beyond[m], key=lambda x: -x[0])
            if m == "time":
                small = sum(1 for x in b if x[2])
                print("  medians beyond 5 %%: %d (matmul at n <= 96 or the CPU variant "
                      "dp/cpu_serial: %d)" % (len(b), small))
            else:
                print("  beyond %s: %d; the largest of them: %s" %
                      ("2 %" if m in DRAM_BYTES else "10 %", len(b), b[0][1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""trace-program.py — per-line counts of a program from the tracer's one extra
run against the SASS path's run per kernel and, where given, Nsight Compute's
Source page (issue 25; bench/trace-program.sh runs it on the GPU machine).

  trace-program.py --name NAME --trace T.json [--sass S.json] [--rerun R.json] [--ncu SOURCE.csv]

For the first run of each kernel with per-line counts in T.json, every line
(file:line, or function+PC without line info) is compared with the same
kernel's line in S.json (gpumem-report --source-lines sass), in R.json (the
tracer in a run of the program of its own: GPUMEM_REPORT_TRACE_RERUN=1, where
T.json made the kept launches again) and in the
export of `ncu --section SourceCounters` (--page source --csv): global
sectors and their ideal, shared wavefronts and their ideal.  Instructions are
not compared: the tracer counts memory instructions only.  Then the arrays
the tracer named for each kernel.  Prints tables and one summary line;
exit status 0 (the verdicts are in the text).
"""
import argparse, importlib.util, json, os, sys

MEM = ("sectors", "sectors_ideal", "wavefronts", "wavefronts_ideal")


def ncu_lines(path):
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("svn", os.path.join(here, "srclines-vs-ncu.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m.ncu_lines(open(path).read())


def first_runs(results):
    """{kernel: run} for the first run of each kernel with per-line counts."""
    out = {}
    for r in results["runs"]:
        sl = r.get("source_lines")
        if r.get("kernel") and sl and r["kernel"] not in out:
            out[r["kernel"]] = r
    return out


def lines(run):
    res = {}
    sl = run["source_lines"]
    if sl.get("status") != "collected":
        return None
    for l in sl["lines"]:
        key = ("%s:%d" % (os.path.basename(l["file"]), l["line"]) if l["line"] > 0 and l["file"]
               else "%s+0x%x" % (l.get("function") or "?", l.get("pc") or 0))
        res[key] = {k: l[k] for k in MEM}
    return res


def compare(a, b):
    keys = sorted(set(a) | set(b))
    rows, equal = [], 0
    for k in keys:
        x = a.get(k) or {c: 0 for c in MEM}
        y = b.get(k) or {c: 0 for c in MEM}
        if not any(x[c] for c in MEM) and not any(y[c] for c in MEM):
            continue
        diff = [c for c in MEM if x[c] != y[c]]
        equal += not diff
        rows.append((k, x, y, diff))
    return rows, equal


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--sass")
    ap.add_argument("--rerun")
    ap.add_argument("--ncu")
    a = ap.parse_args()
    t = json.load(open(a.trace))
    c = t["collection"]
    print("== %s: the tracer's run (%s), %s s, %s launches traced%s" % (
        a.name, c.get("source_lines_method"), c.get("source_lines_seconds"),
        c.get("source_lines_launches"),
        "; fallback: " + c["source_lines_fallback"] if c.get("source_lines_fallback") else ""))
    tr = first_runs(t)
    others = []
    if a.sass and os.path.exists(a.sass):
        s = json.load(open(a.sass))
        cs = s["collection"]
        print("   SASS path (%s): %s s, %s runs" % (cs.get("source_lines_method") or "sass",
                                                    cs.get("source_lines_seconds"),
                                                    cs.get("source_lines_launches")))
        others.append(("sass", {k: lines(r) for k, r in first_runs(s).items()}))
    if a.rerun and os.path.exists(a.rerun):
        s = json.load(open(a.rerun))
        cs = s["collection"]
        print("   the tracer's rerun (%s): %s s, %s launches" % (
            cs.get("source_lines_method"), cs.get("source_lines_seconds"),
            cs.get("source_lines_launches")))
        others.append(("rerun", {k: lines(r) for k, r in first_runs(s).items()}))
    if a.ncu and os.path.exists(a.ncu):
        n = ncu_lines(a.ncu)
        nl = {}
        for kern in tr:
            launches = n.get(kern.split("(")[0])
            if launches:
                nl[kern] = {"%s:%d" % key: v for key, v in launches[0].items() if key != "_files"}
        others.append(("ncu", nl))
    total = {}
    for kern, run in tr.items():
        mine = lines(run)
        short = kern if len(kern) < 60 else kern[:57] + "..."
        if mine is None:
            print("-- %s: not counted by the tracer: %s" % (short, run["source_lines"].get("note")))
            continue
        for tag, other in others:
            theirs = other.get(kern)
            if theirs is None:
                print("-- %s vs %s: no per-line counts there" % (short, tag))
                continue
            rows, equal = compare(mine, theirs)
            t_eq, t_n = total.get(tag, (0, 0))
            total[tag] = (t_eq + equal, t_n + len(rows))
            print("-- %s vs %s: %d of %d lines equal" % (short, tag, equal, len(rows)))
            print("   %-34s %10s %10s %9s %9s %9s %9s %9s %9s  %s" % (
                "line", "sect", tag, "ideal", tag, "wav", tag, "w.ideal", tag, "verdict"))
            for k, x, y, diff in rows:
                print("   %-34s %10d %10d %9d %9d %9d %9d %9d %9d  %s" % (
                    k[:34], x["sectors"], y["sectors"], x["sectors_ideal"], y["sectors_ideal"],
                    x["wavefronts"], y["wavefronts"], x["wavefronts_ideal"],
                    y["wavefronts_ideal"], "equal" if not diff else "DIFF " + ",".join(diff)))
        allocs = run["source_lines"].get("allocations") or []
        if allocs:
            print("   arrays: " + "; ".join(
                "%s (%s B): %d sectors, ideal %d, excess %d" % (
                    x.get("name") or "-", x.get("size"), x["sectors"], x["sectors_ideal"],
                    x["sectors"] - x["sectors_ideal"]) for x in allocs))
    print("%s summary: %s" % (a.name, "; ".join(
        "%s: %d of %d lines equal" % (k, v[0], v[1]) for k, v in total.items()) or "nothing to compare"))


if __name__ == "__main__":
    sys.exit(main())

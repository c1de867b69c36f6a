#!/usr/bin/env python3
"""trace_vs_ncu.py — the tracer's per-instruction counts (trace_vs_ncu --records)
against Nsight Compute's Source page for the same kernels (`ncu --section
SourceCounters --import-source yes`, exported with `--page source --print-source
cuda,sass --csv`), line by line and launch by launch (both runs launch the same
kernels in the same order).

Compared per source line: global sectors ("L2 Theoretical Sectors Global") and
their ideal, shared wavefronts ("L1 Wavefronts Shared") and their ideal.  For
each ideal two readings of the tracer are shown: global, what the records
carry (min(sectors, ceil(lanes * size / 32)), core/warp_rules.h) and from every
active lane's bytes alone; shared, what the records carry (min(wavefronts,
ceil(lanes * size / 128))) and one per phase with an active lane (the CPU
model's).  The verdict is on the readings the records carry; the summary says
how often each reading matched.  Then per instruction: the tracer's PC offsets
against the addresses of ncu's SASS rows (from the function's first one).

Usage: trace_vs_ncu.py --records records.tsv --ncu source.csv
Exit status 1 when a carried count differs.
"""
import argparse, csv, io, os, re, sys

# counter columns of an R line (gmc_trace_dev.h, gmt_counter)
INST, GLD, GST, SLD, SST, SECT, SECT_IDEAL, WAVES, WAVES_IDEAL, ATOM, LANES, BYTES, \
    SECT_IDEAL_REQ, WAVES_PHASES = range(14)

NCU = {"sect": "L2 Theoretical Sectors Global",
       "sect_ideal": "L2 Theoretical Sectors Global Ideal",
       "waves": "L1 Wavefronts Shared",
       "waves_ideal": "L1 Wavefronts Shared Ideal",
       "inst": "Instructions Executed"}


def read_records(path):
    launches = []   # [{label, function, lines: {(file, line): [counters]}, pcs: {pc: [...]}}]
    for raw in open(path):
        f = raw.rstrip("\n").split("\t")
        if f[0] == "L":
            launches.append({"label": f[2], "function": f[3], "lines": {}, "pcs": {}})
        elif f[0] == "R":
            key = (os.path.basename(f[2]), int(f[3]))
            c = [int(x) for x in f[5:]]
            launches[int(f[1])]["pcs"][int(f[4], 16)] = c
            acc = launches[int(f[1])]["lines"].setdefault(key, [0] * len(c))
            for k, v in enumerate(c):
                acc[k] += v
    return launches


def read_ncu(text):
    """Launches in order: [{function, lines: {(file, line): {key: value}},
    pcs: {offset from the function's first instruction: {key: value}}}]."""
    out, cur, hdr, path = [], None, None, None
    headers = set()
    for row in csv.reader(io.StringIO(text)):
        if not row:
            continue
        if row[0] == "File Path":
            path = os.path.basename(row[1])
            continue
        if row[0] == "Function Name":
            # one block per source file of a launch; a file seen again starts the next launch
            if cur is None or path in cur["_files"]:
                cur = {"function": row[1], "_files": set(), "lines": {}, "pcs": {}, "_base": None}
                out.append(cur)
            cur["_files"].add(path)
            hdr = None
            continue
        if row[0] == "Line No":
            hdr = row
            headers.add(tuple(row))
            continue
        if hdr is None or cur is None:
            continue
        sass = row[0] == "" and len(row) > 2 and row[2].startswith("0x")
        if not sass and not row[0].strip().isdigit():
            continue
        rec = {}
        for key, col in NCU.items():
            v = row[hdr.index(col)].replace(",", "") if col in hdr else ""
            rec[key] = int(float(v)) if v not in ("", "-") else 0
        if sass:
            # SASS rows under each CUDA line (an instruction may repeat under several lines)
            addr = int(row[2], 16)
            if cur["_base"] is None or addr < cur["_base"]:
                cur["_base"] = addr
            cur["pcs"][addr] = rec
        elif any(rec.values()):
            cur["lines"][(path, int(row[0]))] = rec
    return out, headers


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", required=True)
    ap.add_argument("--ncu", required=True)
    a = ap.parse_args()
    tool = read_records(a.records)
    ncu, headers = read_ncu(open(a.ncu, encoding="utf-8", errors="replace").read())
    for h in headers:
        print("# ncu columns: " + " | ".join(h))
    if len(tool) != len(ncu):
        print("# launches: tracer %d, ncu %d: compared in order up to the shorter" % (
            len(tool), len(ncu)))
    fmt = "%-34s %-22s %9s %9s %7s %7s %7s %7s %7s %7s %7s %7s  %s"
    print(fmt % ("kernel", "line", "sect", "ncu", "ideal", "idl.req", "ncu", "wav", "ncu",
                 "ideal", "phases", "ncu", "verdict"))
    bad = 0
    match = {"sect": 0, "ideal": 0, "ideal_req": 0, "waves": 0, "w_ideal": 0,
             "ideal_phase": 0}
    n_lines = 0
    per_kernel = []
    for i in range(min(len(tool), len(ncu))):
        t, n = tool[i], ncu[i]
        base = re.sub(r"<.*", "", n["function"].replace("void ", "").split("(")[0]).strip()
        if base not in t["function"]:
            print("# launch %d: tracer %s, ncu %s: not the same kernel" % (
                i, t["function"], n["function"]))
            bad += 1
            continue
        k_bad = 0
        for key in sorted(set(t["lines"]) | set(n["lines"])):
            c = t["lines"].get(key, [0] * 14)
            m = n["lines"].get(key, {k: 0 for k in NCU})
            if not any(c[:10]) and not any(m[k] for k in ("sect", "waves")):
                continue
            n_lines += 1
            ok = {"sect": c[SECT] == m["sect"], "ideal": c[SECT_IDEAL] == m["sect_ideal"],
                  "ideal_req": c[SECT_IDEAL_REQ] == m["sect_ideal"],
                  "waves": c[WAVES] == m["waves"], "w_ideal": c[WAVES_IDEAL] == m["waves_ideal"],
                  "ideal_phase": c[WAVES_PHASES] == m["waves_ideal"]}
            for k in match:
                match[k] += ok[k]
            carried = [k for k in ("sect", "ideal", "waves", "w_ideal") if not ok[k]]
            k_bad += bool(carried)
            print(fmt % (t["label"][:34], "%s:%d" % key, c[SECT], m["sect"], c[SECT_IDEAL],
                         c[SECT_IDEAL_REQ], m["sect_ideal"], c[WAVES], m["waves"], c[WAVES_IDEAL],
                         c[WAVES_PHASES], m["waves_ideal"],
                         "equal" if not carried else "DIFF " + ",".join(carried)))
        per_kernel.append((t["label"], k_bad))
        bad += k_bad
    # per instruction: the tracer's PC offsets against ncu's SASS addresses
    n_pc = pc_found = pc_same = inst_same = 0
    for i in range(min(len(tool), len(ncu))):
        t, n = tool[i], ncu[i]
        if n["_base"] is None:
            continue
        sass = {a - n["_base"]: r for a, r in n["pcs"].items()}
        for pc, c in t["pcs"].items():
            n_pc += 1
            r = sass.get(pc)
            if r is None:
                continue
            pc_found += 1
            pc_same += (c[SECT], c[SECT_IDEAL], c[WAVES], c[WAVES_IDEAL]) == (
                r["sect"], r["sect_ideal"], r["waves"], r["waves_ideal"])
            inst_same += c[INST] == r["inst"]
    print()
    print("Per instruction: %d traced PCs, %d at an address of ncu's SASS (offset from the "
          "function's first instruction), %d with equal sectors, ideal, wavefronts and ideal, "
          "%d with equal warp-level executions" % (n_pc, pc_found, pc_same, inst_same))
    print()
    print("Per kernel (kind of access): lines that differ in the carried counts")
    for label, k_bad in per_kernel:
        print("  %-40s %s" % (label, "equal" if not k_bad else "%d lines DIFFER" % k_bad))
    print()
    print("%d lines compared: sectors equal on %d; ideal sectors as carried (the least of "
          "touched and requested) %d, from requested bytes alone %d; wavefronts %d; ideal "
          "wavefronts as carried %d, one per phase %d" % (
              n_lines, match["sect"], match["ideal"], match["ideal_req"], match["waves"],
              match["w_ideal"], match["ideal_phase"]))
    print("verdict: %s" % ("every carried count equals ncu's" if not bad else
                           "%d lines or launches differ" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

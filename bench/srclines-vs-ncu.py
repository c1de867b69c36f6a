#!/usr/bin/env python3
"""srclines-vs-ncu.py — per-source-line counters of gpumem-report against
Nsight Compute's Source page, launch for launch (issue 14).

For each selected suite variant that has per-line counters in RUN.json, ncu
profiles the same case (`gpumem-report sass-child --plain EXP VARIANT
PARAMS...`, the process the tool itself used, without SASS metrics) with
`--section SourceCounters --import-source yes`; its Source page is exported
with `--page source --print-source cuda,sass --csv`, and every CUDA line's
"L2 Theoretical Sectors Global", "... Ideal", "L1 Wavefronts Shared", "...
Ideal" and "Instructions Executed" is compared with the tool's line.  The same
for the first launch of each kernel of the lab program (LAB.json from
`gpumem-report -- lab`).  Also checks each kernel's per-line sums against the
totals of the counter passes in the same results file.

Usage: srclines-vs-ncu.py --bin gpumem-report --run run.json [--lab-json lab.json
       --lab path/to/lab] --work DIR [--ncu ncu]
Prints a table; exit status 1 when any count differs.
"""
import argparse, csv, io, json, os, re, subprocess, sys, time

PAIRS = [  # (experiment, variant): the patterns of issue 14
    ("coalescing", "stride"), ("alignment", "scalar"), ("aos_soa", "aos"),
    ("aos_soa", "soa"), ("rgb", "interleaved"), ("rgb", "planar"),
    ("traversal2d", "col_mapping"), ("traversal2d", "row_mapping"),
    ("transpose", "tiled"), ("transpose", "padded"), ("transpose", "naive"),
    ("banks", "unpadded"), ("banks", "padded"), ("spmv", "csr_thread"), ("spmv", "csr_warp"),
    ("matmul", "tiled_kmajor"), ("matmul", "tiled"),
]
COLS = {"sectors": "L2 Theoretical Sectors Global",
        "sectors_ideal": "L2 Theoretical Sectors Global Ideal",
        "wavefronts": "L1 Wavefronts Shared",
        "wavefronts_ideal": "L1 Wavefronts Shared Ideal",
        "inst_executed": "Instructions Executed"}


def ncu_lines(csv_text):
    """{function: [{(basename, line): {key: value}} per launch]} from a --page source export."""
    out, cur, hdr, path, fn = {}, None, None, None, None
    for row in csv.reader(io.StringIO(csv_text)):
        if not row:
            continue
        if row[0] == "File Path":
            path = os.path.basename(row[1])
            continue
        if row[0] == "Function Name":
            # one block per source file of a launch; a launch's files come
            # together, so a file seen again in the current launch starts the next
            fn = row[1].split("(")[0]
            launches = out.setdefault(fn, [])
            if not launches or path in launches[-1]["_files"]:
                launches.append({"_files": set()})
            cur = launches[-1]
            cur["_files"].add(path)
            continue
        if row[0] == "Line No":
            hdr = row
            continue
        if hdr is None or cur is None or not row[0].strip().isdigit():
            continue
        rec = {}
        for key, col in COLS.items():
            if col in hdr:
                v = row[hdr.index(col)].replace(",", "")
                rec[key] = int(float(v)) if v not in ("", "-") else 0
            else:
                rec[key] = 0
        if any(rec.values()):
            cur[(path, int(row[0]))] = rec
    return out


MEM = ("sectors", "sectors_ideal", "wavefronts", "wavefronts_ideal")


def tool_lines(run):
    res = {}
    for l in run["source_lines"]["lines"]:
        if l["line"] > 0 and l["file"]:
            res[(os.path.basename(l["file"]), l["line"])] = {k: l[k] for k in COLS}
    return res


def compare(tag, tool, ncu):
    ncu = {k: v for k, v in ncu.items() if k != "_files"}
    keys = sorted(set(tool) | set(ncu), key=lambda k: (k[0], k[1]))
    rows, bad = [], 0
    for k in keys:
        t, n = tool.get(k), ncu.get(k)
        t0 = t or {c: 0 for c in COLS}
        n0 = n or {c: 0 for c in COLS}
        diff = [c for c in MEM if t0[c] != n0[c]]
        if not any(t0.values()) and not any(n0.values()):
            continue
        bad += bool(diff)
        rows.append((tag, "%s:%d" % k, t0, n0, diff))
    return rows, bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--lab-json")
    ap.add_argument("--lab")
    ap.add_argument("--work", required=True)
    ap.add_argument("--ncu", default="ncu")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    r = json.load(open(a.run))
    quick = r["collection"].get("size_set") == "quick"
    all_rows, total_bad, kernels, sums = [], 0, 0, []
    timing = []
    for exp, var in PAIRS:
        runs = [x for x in r["runs"] if x["experiment"] == exp and x["variant"] == var
                and x.get("source_lines") and x["source_lines"]["status"] == "collected"]
        if not runs:
            print("# %s/%s: no per-line counters in %s" % (exp, var, a.run))
            total_bad += 1
            continue
        run = runs[0]
        params = ["%s=%s" % (k, v) for k, v in run["params"].items()]
        base = [a.bin, "sass-child"] + (["--quick"] if quick else [])
        tag = "%s/%s" % (exp, var)
        rep = os.path.join(a.work, tag.replace("/", "_"))
        t0 = time.time()
        subprocess.run(base + ["--plain", exp, var] + params, check=True)
        t_plain = time.time() - t0
        t0 = time.time()
        subprocess.run(base + [exp, var] + params, check=True, stdout=subprocess.DEVNULL)
        t_sass = time.time() - t0
        timing.append((tag, t_plain, t_sass))
        p = subprocess.run([a.ncu, "--section", "SourceCounters", "--import-source", "yes",
                            "-k", "regex:^" + re.escape(run["kernel"].split("<")[0]), "-f", "-o", rep] + base + ["--plain", exp, var]
                           + params, capture_output=True, text=True)
        if p.returncode:
            print("# %s: ncu failed: %s" % (tag, p.stderr[-400:]))
            total_bad += 1
            continue
        e = subprocess.run([a.ncu, "-i", rep + ".ncu-rep", "--page", "source", "--print-source",
                            "cuda,sass", "--csv"], capture_output=True, text=True, check=True)
        open(rep + ".csv", "w").write(e.stdout)
        n = ncu_lines(e.stdout)
        launches = n.get(run["kernel"]) or (list(n.values())[0] if n else None)
        if not launches:
            print("# %s: ncu exported no source lines for %s" % (tag, run["kernel"]))
            total_bad += 1
            continue
        rows, bad = compare(tag + " " + " ".join(params), tool_lines(run), launches[0])
        all_rows += rows
        total_bad += bad
        kernels += 1
        m = {k: (v["value"] if isinstance(v, dict) else v) for k, v in run["metrics"].items()}
        ls = run["source_lines"]["lines"]
        s_sum = sum(l["sectors"] for l in ls)
        ld_st = sum(m.get(k) or 0 for k in ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                            "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"))
        w_sum = sum(l["wavefronts"] for l in ls)
        w_tot = sum(m.get(k) or 0 for k in ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                                            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"))
        sums.append((tag, s_sum, ld_st, w_sum, w_tot))
    if a.lab_json and a.lab:
        lab = json.load(open(a.lab_json))
        rep = os.path.join(a.work, "lab")
        p = subprocess.run([a.ncu, "--section", "SourceCounters", "--import-source", "yes",
                            "-f", "-o", rep, a.lab], capture_output=True, text=True)
        if p.returncode:
            print("# lab: ncu failed: %s" % p.stderr[-400:])
            total_bad += 1
        else:
            e = subprocess.run([a.ncu, "-i", rep + ".ncu-rep", "--page", "source",
                                "--print-source", "cuda,sass", "--csv"], capture_output=True,
                               text=True, check=True)
            open(rep + ".csv", "w").write(e.stdout)
            n = ncu_lines(e.stdout)
            seen = set()
            for run in lab["runs"]:
                sl = run.get("source_lines")
                if not sl or sl["status"] != "collected" or run["kernel"] in seen:
                    continue
                seen.add(run["kernel"])
                short = run["kernel"].split("(")[0]
                launches = n.get(short)
                if not launches:
                    print("# lab %s: not in ncu's export" % short)
                    total_bad += 1
                    continue
                rows, bad = compare("lab/" + short, tool_lines(run), launches[0])
                all_rows += rows
                total_bad += bad
                kernels += 1
    print("Per source line: gpumem-report (tool) vs ncu --page source (ncu), one launch each")
    print("%-44s %-22s %12s %12s %10s %10s %10s %10s %12s %12s  %s" % (
        "kernel (case)", "line", "sect tool", "sect ncu", "ideal tool", "ideal ncu",
        "wav tool", "wav ncu", "inst tool", "inst ncu", "verdict"))
    for tag, where, t, n, diff in all_rows:
        print("%-44s %-22s %12d %12d %10d %10d %10d %10d %12d %12d  %s" % (
            tag[:44], where[:22], t["sectors"], n["sectors"], t["sectors_ideal"],
            n["sectors_ideal"], t["wavefronts"], n["wavefronts"], t["inst_executed"],
            n["inst_executed"], ("equal" if not diff else "DIFF " + ",".join(diff)) +
            ("" if t["inst_executed"] == n["inst_executed"] else "  (inst differ)")))
    print()
    print("Per-line sums against the counter passes' kernel totals (same results file)")
    print("%-28s %14s %14s %14s %14s" % ("kernel", "sectors lines", "sectors total",
                                         "wavefr. lines", "wavefr. total"))
    for tag, s, st, w, wt in sums:
        print("%-28s %14d %14d %14d %14d  %s" % (tag, s, st, w, wt,
                                                 "equal" if s == st and w == wt else "differ"))
    print()
    print("Cost of one case in a process of its own (wall s): plain launch, with SASS metrics")
    for tag, tp, ts in timing:
        print("%-28s %8.3f %8.3f  (+%.3f)" % (tag, tp, ts, ts - tp))
    eq = sum(1 for x in all_rows if not x[4])
    ieq = sum(1 for x in all_rows if x[2]["inst_executed"] == x[3]["inst_executed"])
    print()
    print("%d kernels compared, %d lines: %d equal in sectors, ideal sectors, wavefronts and "
          "ideal wavefronts; %d also in instructions executed; %d problems" % (
              kernels, len(all_rows), eq, ieq, total_bad))
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())

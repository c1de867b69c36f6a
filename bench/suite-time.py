#!/usr/bin/env python3
"""suite-time.py OUT [COMMIT] — where the suite's main job spends its time (issue 25), on the
GPU machine after `make`.

1. The main job at its defaults (`gpumem-report --out OUT/main/report.html`), its stderr kept:
   the `time:` line says how the collection's wall time splits (setup, model, validation,
   timing, profiling, per-line pass).
2. The floor of one per-line child: this program's start (`--version`), a CUDA context
   (OUT/ctx-probe, cudaFree(0)).
3. Six of the per-line children alone, with and without SASS metrics (--plain), each phase
   timed (GPUMEM_REPORT_CHILD_TIMES=1).
4. All the children of the pass (the runs that have per-line counts in the main job's
   results) at WIDTHS processes at a time (default 4 8 16), wall time of each width, and the
   mean of each phase of a child under that contention.

Writes OUT/summary.txt (and each step's output beside it).  DEADLINE: seconds (default 300).
"""
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

OUT = sys.argv[1]
COMMIT = sys.argv[2] if len(sys.argv) > 2 else "unknown"
GR = os.path.abspath("build/gpumem-report")
DEADLINE = float(os.environ.get("DEADLINE", "300"))
WIDTHS = [int(w) for w in os.environ.get("WIDTHS", "4 8 16").split()]
START = time.monotonic()
os.makedirs(OUT, exist_ok=True)
lines = []


def say(s):
    lines.append(s)
    print(s, flush=True)


def left():
    return DEADLINE - (time.monotonic() - START)


def run(args, env=None, timeout=120):
    e = dict(os.environ)
    if env:
        e.update(env)
    t0 = time.monotonic()
    try:
        p = subprocess.run(args, env=e, capture_output=True, text=True,
                           timeout=max(1, min(timeout, left())))
        return p.returncode, time.monotonic() - t0, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, time.monotonic() - t0, "", "timeout"


def smi():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader",
                               "-i", "0"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"


say("# bench/suite-time.py: where the suite's main job spends its time")
say("# date: %s" % time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
say("# device, driver: %s" % smi())
say("# commit: %s; %d CPU cores" % (COMMIT, os.cpu_count() or 0))

# 1. the main job
main = os.path.join(OUT, "main")
os.makedirs(main, exist_ok=True)
RESULTS = os.environ.get("RESULTS")   # a main job's results already taken: step 1 skipped
if RESULTS:
    say("\n## 1. main job: not run; the children of %s" % RESULTS)
    err = ""
else:
    rc, wall, _, err = run([GR, "--out", os.path.join(main, "report.html"), "--json",
                            os.path.join(main, "run.json")], timeout=200)
    open(os.path.join(OUT, "main.err"), "w").write(err)
    say("\n## 1. main job at its defaults: rc %d, %.1f s wall" % (rc, wall))
for ln in err.splitlines():
    if ln.startswith(("time:", "results:", "report:", "source lines:")):
        say("  " + ln)

picks = []
try:
    r = json.load(open(RESULTS or os.path.join(main, "run.json")))
    for run_ in r["runs"]:
        sl = run_.get("source_lines")
        if sl and sl.get("status") == "collected":
            ps = ["%s=%d" % (k, v) for k, v in run_["params"].items()]
            picks.append((run_["experiment"], run_["variant"], ps, sl.get("seconds")))
except (OSError, ValueError, KeyError) as ex:
    say("  no per-line picks: %s" % ex)
say("  per-line children: %d; their own wall times sum to %.1f s"
    % (len(picks), sum(p[3] or 0 for p in picks)))

# 2. the floor
say("\n## 2. the floor of a child (median of 5, s)")
probe_src = os.path.join(OUT, "ctx-probe.cu")
open(probe_src, "w").write("#include <cuda_runtime.h>\nint main(void){return cudaFree(0)!=cudaSuccess;}\n")
probe = os.path.join(OUT, "ctx-probe")
prc, _, _, perr = run(["nvcc", "-o", probe, probe_src])


def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


v = [run([GR, "--version"])[1] for _ in range(5)]
say("  gpumem-report --version          %.3f" % med(v))
if prc == 0:
    v = [run([probe])[1] for _ in range(5)]
    say("  a CUDA context (cudaFree(0))     %.3f" % med(v))
    for w in WIDTHS:
        t0 = time.monotonic()
        with ThreadPoolExecutor(max_workers=w) as ex:
            res = list(ex.map(lambda _: run([probe]), range(w)))
        say("  %2d contexts at once              %.3f (each %.3f to %.3f)" % (
            w, time.monotonic() - t0, min(r_[1] for r_ in res), max(r_[1] for r_ in res)))
else:
    say("  ctx-probe did not build: %s" % perr.strip()[-200:])

PH = ["subscribe", "context", "setup", "launch", "records"]


def phases(err):
    for ln in err.splitlines():
        if ln.startswith("sass-child times (s):"):
            out = {}
            for part in ln.split(":", 1)[1].split(","):
                k, _, val = part.strip().rpartition(" ")
                out[k] = float(val)
            return out
    return None


def child(p, plain=False):
    a = [GR, "sass-child"] + (["--plain"] if plain else []) + [p[0], p[1]] + p[2]
    return run(a, env={"GPUMEM_REPORT_CHILD_TIMES": "1"}, timeout=120)


# 3. six children alone
say("\n## 3. children alone (s): wall, then each phase")
say("  %-34s %-5s %6s  %s" % ("case", "mode", "wall", "  ".join("%-11s" % h for h in PH)))
for p in picks[:: max(1, len(picks) // 6)][:6]:
    for plain in (True, False):
        if left() < 30:
            break
        rc, wall, _, err = child(p, plain)
        ph = phases(err) or {}
        say("  %-34s %-5s %6.3f  %s%s" % ("%s/%s" % (p[0], p[1]), "plain" if plain else "sass",
                                          wall, "  ".join("%-11.3f" % ph.get(h, float("nan"))
                                                          for h in PH),
                                          "" if rc == 0 else "  rc %d %s" % (rc, err[-120:])))

# 4. the whole pass at several widths
say("\n## 4. all %d children at W at a time: wall (s), failures, mean phase of a child (s)" % len(picks))
for w in WIDTHS:
    if left() < 40 or not picks:
        say("  width %d skipped: deadline" % w)
        continue
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=w) as ex:
        res = list(ex.map(child, picks))
    wall = time.monotonic() - t0
    bad = sum(1 for r_ in res if r_[0] != 0)
    phs = [phases(r_[3]) for r_ in res]
    phs = [x for x in phs if x]
    mean = {h: sum(x.get(h, 0) for x in phs) / max(1, len(phs)) for h in PH}
    say("  width %2d: %6.2f s, %d failed; child wall %.3f; %s" % (
        w, wall, bad, sum(r_[1] for r_ in res) / max(1, len(res)),
        ", ".join("%s %.3f" % (h, mean[h]) for h in PH)))

# 5. the Compute Sanitizer tracer: every pick traced in one process, each case timed
lib = os.path.abspath("build/libgpumem-trace.so")
if picks and os.path.exists(lib) and left() > 60:
    a = [GR, "trace-child", "--out", os.path.join(OUT, "trace.txt"), "--lib", lib]
    for k, p in enumerate(picks):
        a += ["--case", str(k), p[0], p[1]] + p[2]
    rc, wall, _, err = run(a, env={"GPUMEM_REPORT_CHILD_TIMES": "1"}, timeout=max(30, left() - 10))
    open(os.path.join(OUT, "trace-child.err"), "w").write(err)
    say("\n## 5. all %d picks traced in one process: rc %d, %.1f s wall" % (len(picks), rc, wall))
    rows = []
    for ln in err.splitlines():
        if ln.startswith("trace-child times (s):"):
            f = ln.split(":", 1)[1].split()   # NAME setup X, traced launch Y
            rows.append((float(f[5]), float(f[2].rstrip(",")), f[0]))
    say("  sum of setups %.1f s, of traced launches %.1f s" % (sum(r_[1] for r_ in rows),
                                                              sum(r_[0] for r_ in rows)))
    for tl, su, name in sorted(rows, reverse=True):
        say("  %-34s setup %6.3f  traced launch %7.3f" % (name, su, tl))
else:
    say("\n## 5. tracer: skipped (%s)" % ("no picks" if not picks else
                                         "no %s" % lib if not os.path.exists(lib) else "deadline"))

open(os.path.join(OUT, "summary.txt"), "w").write("\n".join(lines) + "\n")

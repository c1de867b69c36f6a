#!/usr/bin/env python3
"""ctx-overlap.py OUT [COMMIT] — can the per-line children make their CUDA contexts while the
suite's main job times and profiles (issue 25)?  On the GPU machine after `make`.

A child of the SASS per-line pass spends most of its time making its context, and the driver
makes contexts one at a time across processes (bench/suite-time.py, section 2).  If other
processes could make theirs, and then wait idle, while the main job runs, the pass after it
would be short.  This measures whether that changes what the main job measures:
  A   the main job with --no-source-lines, nothing else on the GPU;
  B   the same while HOLDERS processes (default 43) each make a context at the start of the
      run and hold it, idle, for HOLD seconds;
  A2  A again, for the run-to-run spread.
For every timed run: the ratio of its median time to A's (B and A2); for every counter that is
a count (sectors, requests, wavefronts, instructions): equal or not; DRAM bytes: the largest
relative difference.  Also the GPU memory one idle context holds (nvidia-smi).
Writes OUT/summary.txt.
"""
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_runs  # noqa: E402  (bench/compare_runs.py)

OUT = sys.argv[1]
COMMIT = sys.argv[2] if len(sys.argv) > 2 else "unknown"
GR = os.path.abspath("build/gpumem-report")
HOLDERS = int(os.environ.get("HOLDERS", "43"))
HOLD = int(os.environ.get("HOLD", "30"))
os.makedirs(OUT, exist_ok=True)
lines = []


def say(s):
    lines.append(s)
    print(s, flush=True)


def smi(q):
    return subprocess.run(["nvidia-smi", "--query-gpu=" + q, "--format=csv,noheader,nounits", "-i", "0"],
                          capture_output=True, text=True).stdout.strip()


say("# bench/ctx-overlap.py: contexts made and held by other processes during the main job")
say("# date: %s" % time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
say("# device, driver: %s" % smi("name,driver_version"))
say("# commit: %s; %d holders, each for %d s" % (COMMIT, HOLDERS, HOLD))

src = os.path.join(OUT, "ctx-hold.cu")
open(src, "w").write("#include <cuda_runtime.h>\n#include <stdlib.h>\n#include <unistd.h>\n"
                     "int main(int c, char **v){if(cudaFree(0)!=cudaSuccess)return 1;"
                     "sleep(c>1?atoi(v[1]):30);return 0;}\n")
hold = os.path.join(OUT, "ctx-hold")
subprocess.run(["nvcc", "-o", hold, src], check=True)

# memory of one idle context
m0 = int(smi("memory.used"))
p = subprocess.Popen([hold, "8"])
time.sleep(3)
m1 = int(smi("memory.used"))
p.wait()
say("GPU memory of one idle context: %d MiB" % (m1 - m0))


def main_job(name, holders):
    procs = [subprocess.Popen([hold, str(HOLD)]) for _ in range(holders)]
    t0 = time.monotonic()
    r = subprocess.run([GR, "collect", "--no-source-lines", "--json", os.path.join(OUT, name + ".json")],
                       capture_output=True, text=True)
    wall = time.monotonic() - t0
    peak = smi("memory.used")
    for q in procs:
        q.wait()
    t = [ln for ln in r.stderr.splitlines() if ln.startswith("time:")]
    say("%-3s rc %d, %.1f s; %s; GPU memory used at its end %s MiB" % (name, r.returncode, wall,
                                                                      t[0] if t else "", peak))
    return json.load(open(os.path.join(OUT, name + ".json")))


a = main_job("A", 0)
b = main_job("B", HOLDERS)
a2 = main_job("A2", 0)

def compare(x, y, label):
    for ln in compare_runs.compare(x, y, label):
        say(ln)


compare(a, a2, "A2 against A (nothing else on the GPU, both)")
compare(a, b, "B against A (B with %d contexts made and held beside it)" % HOLDERS)
open(os.path.join(OUT, "summary.txt"), "w").write("\n".join(lines) + "\n")

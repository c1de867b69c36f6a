#!/usr/bin/env python3
"""Write a large results file for the scaling benchmark (bench/large-input.sh):
the runs of a real results file replicated COPIES times, each copy's runs told
apart by one more parameter `copy` (so diff can pair them), everything else as
measured.  Usage: large-input.py SRC.json COPIES OUT.json"""
import json
import sys

src, copies, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(src) as f:
    doc = json.load(f)
runs = doc["runs"]
big = []
for k in range(copies):
    for r in runs:
        c = dict(r)
        c["params"] = dict(r.get("params") or {})
        c["params"]["copy"] = k
        big.append(c)
doc["runs"] = big
doc["origin"] = "benchmark input: %s replicated %d times (synthetic scale, measured values)" % (src, copies)
with open(out, "w") as f:
    json.dump(doc, f, indent=1)

#!/usr/bin/env python3
"""tests/chart-compare.py — do two gnuplot scripts draw the same charts?

    python3 tests/chart-compare.py BEFORE.gp AFTER.gp
    python3 tests/chart-compare.py SNAPDIR-before SNAPDIR-after

Compares what the charts show and ignores how they look: per chart (a `set
output`), its title, axis labels, tic labels and positions, text labels,
vertical reference lines, and every plotted series: its name and its points
(the data-block columns its `using` reads, rows where none of them but the
first has a value left out), or the constant of a reference line.  Sizes,
fonts, colours, margins, rotations, ranges, bar widths and offsets, styles,
data-block names and layouts may differ.  With two folders, every
gnuplot/*/script-*.gp of tests/snapshot.sh is compared.  Exit status 0 when
all are the same, 1 with a line per difference.
"""
import glob
import math
import os
import re
import sys


def split_top(s, sep):
    """Split s at sep outside single-quoted strings and brackets."""
    out, depth, quote, cur = [], 0, False, []
    i = 0
    while i < len(s):
        c = s[i]
        if quote:
            cur.append(c)
            if c == "'":
                if i + 1 < len(s) and s[i + 1] == "'":
                    cur.append("'")
                    i += 1
                else:
                    quote = False
        elif c == "'":
            quote = True
            cur.append(c)
        elif c in "([":
            depth += 1
            cur.append(c)
        elif c in ")]":
            depth -= 1
            cur.append(c)
        elif c == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    out.append("".join(cur))
    return out


def strings(s):
    """The single-quoted strings of s, quotes undoubled."""
    return [m.replace("''", "'") for m in re.findall(r"'((?:[^']|'')*)'", s)]


def num(tok):
    return float(tok)


def same_num(a, b):
    if math.isnan(a) and math.isnan(b):
        return True
    return a == b


def tics(line):
    """('label', position) pairs of a `set xtics ... (...)` line."""
    m = re.search(r"\((.*)\)\s*$", line)
    if not m:
        return []
    out = []
    for part in split_top(m.group(1), ","):
        part = part.strip()
        lab = strings(part)
        pos = re.sub(r"'((?:[^']|'')*)'", "", part).strip()
        # a tic label is a format: '%%' shows as '%'
        out.append((lab[0].replace("%%", "%") if lab else None, num(pos)))
    return out


def columns(spec):
    """The data columns a `using` spec reads, in order of first use."""
    cols = []
    for item in split_top(spec, ":"):
        item = item.strip()
        found = [int(x) for x in re.findall(r"\$(\d+)", item)]
        if re.fullmatch(r"\d+", item):
            found = [int(item)]
        for c in found:
            if c not in cols:
                cols.append(c)
    return sorted(cols)


def parse(path):
    """{output: chart} where a chart is a dict of what it shows."""
    text = open(path, encoding="utf-8").read()
    charts, cur, blocks = {}, None, {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        m = re.match(r"^\$(\w+) << EOD$", line)
        if m:
            rows = []
            while lines[i] != "EOD":
                rows.append([num(t) for t in lines[i].split()])
                i += 1
            i += 1
            blocks[m.group(1)] = rows
            continue
        m = re.match(r"^set output '(.*)'$", line)
        if m:
            cur = {"title": None, "xlabel": None, "ylabel": None, "xtics": [], "ytics": [],
                   "labels": [], "vlines": [], "series": []}
            charts[m.group(1)] = cur
            continue
        if cur is None:
            continue
        for ax in ("title", "xlabel", "ylabel"):
            if line.startswith("set %s '" % ax):
                cur[ax] = strings(line)[0]
        for ax in ("xtics", "ytics"):
            if line.startswith("set %s " % ax) and "(" in line:
                cur[ax] = tics(line)
        m = re.match(r"^set label (\d+ )?'((?:[^']|'')*)' at ([^,]+), ([^ ]+) ", line)
        if m:
            cur["labels"].append((m.group(2).replace("''", "'"), num(m.group(3)),
                                  num(m.group(4))))
        m = re.match(r"^set arrow from ([^,]+), graph 0 to ([^,]+), graph 1", line)
        if m:
            cur["vlines"].append(num(m.group(1)))
        if line.startswith("plot "):
            for clause in split_top(line[5:], ","):
                clause = clause.strip()
                t = re.search(r"\btitle '((?:[^']|'')*)'", clause)
                name = t.group(1).replace("''", "'") if t else None
                m = re.match(r"^\$(\w+) using (.+?) with ", clause)
                if m:
                    cols = columns(m.group(2))
                    pts = []
                    for row in blocks[m.group(1)]:
                        vals = [row[c - 1] if c - 1 < len(row) else float("nan") for c in cols]
                        if len(vals) > 1 and all(math.isnan(v) for v in vals[1:]):
                            continue
                        pts.append(vals)
                    cur["series"].append((name, "points", pts))
                    continue
                m = re.match(r"^([-+0-9.eE]+|NaN) with ", clause)
                if m:
                    cur["series"].append((name, "constant", [[num(m.group(1))]]))
                    continue
                cur["series"].append((name, "other", clause))
    for c in charts.values():
        c["vlines"].sort()
        c["labels"].sort()
    return charts


def same_pts(a, b):
    if len(a) != len(b):
        return False
    for ra, rb in zip(a, b):
        if len(ra) != len(rb) or not all(same_num(x, y) for x, y in zip(ra, rb)):
            return False
    return True


def compare(pa, pb, where):
    a, b = parse(pa), parse(pb)
    bad = []
    if list(a) != list(b):
        bad.append("%s: charts %s vs %s" % (where, list(a), list(b)))
    for name in a:
        if name not in b:
            continue
        ca, cb = a[name], b[name]
        at = "%s %s" % (where, name)
        for k in ("title", "xlabel", "ylabel"):
            if ca[k] != cb[k]:
                bad.append("%s: %s %r vs %r" % (at, k, ca[k], cb[k]))
        for k in ("xtics", "ytics", "labels", "vlines"):
            if len(ca[k]) != len(cb[k]) or any(
                    (x != y if not isinstance(x, float) else not same_num(x, y))
                    for x, y in zip(ca[k], cb[k])):
                bad.append("%s: %s %r vs %r" % (at, k, ca[k], cb[k]))
        sa, sb = ca["series"], cb["series"]
        if [s[0] for s in sa] != [s[0] for s in sb]:
            bad.append("%s: series %r vs %r" % (at, [s[0] for s in sa], [s[0] for s in sb]))
            continue
        for x, y in zip(sa, sb):
            if x[1] != y[1] or (x[1] == "other" and x[2] != y[2]) or \
                    (x[1] != "other" and not same_pts(x[2], y[2])):
                bad.append("%s: series %r: %r vs %r" % (at, x[0], x[2], y[2]))
    return bad


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    pairs = []
    if os.path.isdir(argv[1]):
        for pa in sorted(glob.glob(os.path.join(argv[1], "gnuplot", "*", "script-*.gp"))):
            rel = os.path.relpath(pa, argv[1])
            pairs.append((pa, os.path.join(argv[2], rel), rel))
    else:
        pairs.append((argv[1], argv[2], os.path.basename(argv[2])))
    bad = []
    for pa, pb, rel in pairs:
        if not os.path.exists(pb):
            bad.append("%s: missing" % rel)
            continue
        bad += compare(pa, pb, rel)
    for line in bad:
        print(line)
    n = sum(len(parse(p[0])) for p in pairs)
    print("chart-compare: %d scripts, %d charts, %d differences" % (len(pairs), n, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""hbp's times in runs 416 and 417 (this directory) against run 406 (in
../2026-12-01-0800-h200-hbp-ticket-and-small-combine, the groups kernel at 56 registers without
fixed rounds), per matrix and precision, with cuSPARSE's from the three runs to show that the
machines ran alike."""
import collections, glob, gzip, json, math, os, statistics, sys

here = os.path.dirname(os.path.abspath(__file__))
old_dir = os.path.join(here, "..", "2026-12-01-0800-h200-hbp-ticket-and-small-combine")

def load(pattern, label_of):
    t = collections.defaultdict(list)
    for f in glob.glob(pattern):
        for line in gzip.open(f, "rt"):
            r = json.loads(line)
            if "median_ms" not in r: continue
            lab = label_of(r)
            if lab: t[(r["precision"], r["matrix"], lab)].append(r["median_ms"] * 1e3)
    return {k: statistics.median(v) for k, v in t.items()}

old = load(os.path.join(old_dir, "run406-tcsparse-*.jsonl.gz"), lambda r: r["method"])
r416 = load(os.path.join(here, "run416-hbp-*.jsonl.gz"), lambda r: r.get("variant") or r["method"])
r417 = load(os.path.join(here, "run417-hbp-*.jsonl.gz"), lambda r: r.get("variant") or r["method"])
geo = collections.defaultdict(list)
for (p, m, lab), t406 in sorted(old.items()):
    if lab != "hbp": continue
    row = {"406": t406, "416 auto": r416[(p, m, "hbp")], "416 f0": r416[(p, m, "f0")],
           "417 fixed": r417[(p, m, "hbp")], "417 f0": r417[(p, m, "f0")]}
    cus = (old[(p, m, "cusparse")], r416[(p, m, "cusparse")], r417[(p, m, "cusparse")])
    print(p, f"{m:22s}", "  ".join(f"{k} {v:7.1f}" for k, v in row.items()),
          "  cuSPARSE 406/416/417", " ".join(f"{c:7.1f}" for c in cus))
    for k, v in row.items():
        if k != "406": geo[(p, k)].append(t406 / v)
for (p, k), v in sorted(geo.items()):
    print(p, k, "over run 406: geomean", round(math.exp(sum(map(math.log, v)) / len(v)), 3),
          "min", round(min(v), 3), "max", round(max(v), 3))

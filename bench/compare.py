#!/usr/bin/env python3
"""Compares two sets of `tcsparse bench` results of the same cases (e.g. two builds run on one GPU).

For every (operation, n, precision, method) present in both, it prints the geometric mean over
the matrices of the time ratio NEW / OLD (below 1: NEW is faster), its spread, and the geometric
mean of each side's speedup over cuSPARSE (default algorithm) within its own results, which is
what the project's goals are stated in. Records with an "error" or a failed check are left out.
A case found in several files of one side (repeated runs, e.g. one with each side first, which
cancels the run-order effect) counts with the geometric mean of its times.

    python3 bench/compare.py --old old-default.jsonl old-matrices.jsonl.gz \\
                             --new new-default.jsonl new-matrices.jsonl.gz
"""

import argparse
import gzip
import json
import math
import sys
from collections import defaultdict

BASELINE = "cusparse"


def read(paths):
    """{(operation, n, precision, method, matrix): median_ms} of the usable records (the
    geometric mean over the files that hold the case)."""
    times = defaultdict(list)
    for path in paths:
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                record = json.loads(line)
                if record.get("error") or not record.get("check_passed") or record.get("variant"):
                    continue
                key = (record["operation"], record.get("n", 1), record["precision"],
                       record["method"], record["matrix"])
                times[key].append(record["median_ms"])
    return {key: geomean(values) for key, values in times.items()}


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def speedups(times):
    """{(operation, n, precision, method): [speedup over the baseline per matrix]}."""
    result = defaultdict(list)
    for (operation, n, precision, method, matrix), ms in times.items():
        base = times.get((operation, n, precision, BASELINE, matrix))
        if base and method != BASELINE:
            result[(operation, n, precision, method)].append(base / ms)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", nargs="+", required=True, help="result files of the old side")
    parser.add_argument("--new", nargs="+", required=True, help="result files of the new side")
    args = parser.parse_args()
    old, new = read(args.old), read(args.new)
    ratios = defaultdict(list)
    for key, ms in new.items():
        if key in old:
            ratios[key[:4]].append(ms / old[key])
    old_speedups, new_speedups = speedups(old), speedups(new)
    print("| operation | precision | method | matrices | time new/old (geomean) | min | max "
          "| speedup over cuSPARSE old | new |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for key in sorted(ratios):
        operation, n, precision, method = key
        values = ratios[key]
        label = operation if operation == "spmv" else f"{operation} n={n}"
        old_s = geomean(old_speedups.get(key, []))
        new_s = geomean(new_speedups.get(key, []))
        speedup_text = ("-", "-") if method == BASELINE else (f"{old_s:.3f}x", f"{new_s:.3f}x")
        print(f"| {label} | {precision} | {method} | {len(values)} | {geomean(values):.4f} "
              f"| {min(values):.3f} | {max(values):.3f} | {speedup_text[0]} | {speedup_text[1]} |")
    if not ratios:
        print("no case is present on both sides", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

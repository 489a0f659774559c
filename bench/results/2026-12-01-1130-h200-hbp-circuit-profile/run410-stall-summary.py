#!/usr/bin/env python3
"""Stall reasons and the hottest instructions of Nsight Compute source-page exports.

Usage: run410-stall-summary.py run410-ncu-source-auto.csv.gz [more .csv.gz ...]
(each written by `ncu --import REPORT --page source --csv --print-source sass`)."""
import collections
import csv
import gzip
import sys

for path in sys.argv[1:]:
    rows = list(csv.reader(gzip.open(path, "rt")))
    header, data = rows[1], rows[2:]
    samples_at = header.index("Warp Stall Sampling (All Samples)")
    executed_at = header.index("Instructions Executed")
    source_at = header.index("Source")
    stalls = [i for i, name in enumerate(header)
              if name.startswith("stall_") and "Not Issued" not in name]
    totals, samples, executed = collections.Counter(), 0, 0
    for row in data:
        try:
            s, n = int(row[samples_at]), int(row[executed_at])
        except ValueError:
            continue
        samples += s
        executed += n
        for i in stalls:
            totals[header[i]] += int(row[i] or 0)
    print(f"{path}: {samples} stall samples, {executed} warp instructions executed")
    print("  " + ", ".join(f"{k[6:]} {v / samples * 100:.1f}%" for k, v in totals.most_common(8)))
    for row in sorted(data, key=lambda r: -int(r[samples_at] or 0))[:14]:
        print(f"  {row[samples_at]:>6} samples {row[executed_at]:>8} executed  {row[source_at].strip()[:70]}")

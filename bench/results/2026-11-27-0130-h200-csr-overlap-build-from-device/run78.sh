#!/usr/bin/env bash
# Run 78: where a csr_overlap plan build from device CSR spends its time (a binary with wall-clock
# laps printed under TCSPARSE_TRACE_BUILD; not committed), default suite fp32, 5 builds each.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run78.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse_trace.xz > $b/trace; chmod +x $b/*
TCSPARSE_TRACE_BUILD=1 timeout 120 $b/trace bench --suite default --methods csr_overlap --precisions fp32 --from-device \
  --plan-builds 5 --runs 5 --output $R/trace.jsonl > $R/trace-out.txt 2> $R/trace-err.txt
echo "rc $?"
python3 - $R/trace-err.txt <<'PY'
import sys, collections
builds = []  # list of lists of (what, us)
cur = None
for line in open(sys.argv[1]):
    if not line.startswith("trace "): continue
    what = line[6:34].strip(); us = float(line[34:].split()[0])
    if what == "plan start": cur = []; builds.append(cur); continue
    if cur is not None: cur.append((what, us))
# builds come in the bench's order: 5 a matrix (first skipped), 16 matrices
order = []
for i in range(0, len(builds), 5):
    group = builds[i + 1:i + 5]
    agg = collections.OrderedDict()
    for b in group:
        for w, us in b: agg.setdefault(w, []).append(us)
    order.append(agg)
for k, agg in enumerate(order):
    total = sum(sorted(v)[len(v) // 2] for v in agg.values())
    print("matrix", k, "total %.0f us:" % total, ", ".join("%s %.0f" % (w, sorted(v)[len(v) // 2]) for w, v in agg.items()))
PY
grep -E "^ *(stencil2d_2000|pruned_16k|banded_2m)" $R/trace-out.txt | head

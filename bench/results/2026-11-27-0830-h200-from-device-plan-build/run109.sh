#!/usr/bin/env bash
# Run 109: as run 108, after: the table arrays from the pool, download_one through pinned memory,
# the R-group test in 32 bits, the column check issuing its predecessor loads with the columns.
# laps printed under TCSPARSE_LAPS (not committed), default suite fp32 and fp64.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee -a $OUT/run109.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse_laps.xz > $b/tl; chmod +x $b/tl
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
TCSPARSE_LAPS=1 timeout 120 $b/tl bench --suite default --methods csr_overlap --precisions fp32,fp64 --from-device \
  --plan-builds 5 --runs 10 --output $OUT/laps.jsonl > /dev/null 2> $OUT/laps.txt
echo "rc $?"
python3 - $OUT/laps.txt $OUT/laps.jsonl <<'PY'
import sys, json, collections
recs = [json.loads(l) for l in open(sys.argv[2])]
builds = []; cur = None
for line in open(sys.argv[1]):
    if not line.startswith("LAP "): continue
    parts = line.split(); what, us = parts[1], float(parts[-1])
    if what.startswith("begin"): cur = []; builds.append((int(what[5:]), cur)); continue
    cur.append((what, us))
by_rows = collections.defaultdict(list)
for rows, b in builds:
    if rows != 4096: by_rows[rows].append(b)
seen = collections.Counter()
for r in recs:
    k = r["rows"]; j = seen[k]; seen[k] += 1
    mine = by_rows[k][5 * j: 5 * j + 5]
    if r["nnz"] < 1e6: continue
    agg = collections.OrderedDict()
    for b in mine[1:]:
        for w, us in b: agg.setdefault(w, []).append(us)
    print(r["matrix"][:18], r["precision"], "build %.0f us, spmv %.0f us:" % (r["plan_build_ms"] * 1e3, r["median_ms"] * 1e3),
          " ".join("%s=%.0f" % (w, sorted(v)[len(v) // 2]) for w, v in agg.items()))
PY

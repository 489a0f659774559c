#!/usr/bin/env bash
# Run 378: run 376's binary, hbp GPU builds on the hbp suite up to 80 M nonzeros, five more
# rounds (each record's device_preprocess_ms is one build, the last of 3), for a median per matrix.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run378.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for round in 1 2 3 4 5; do
  timeout 100 $b/tcsparse bench --suite hbp --matrix-dir .mx --max-nnz 80000000 --methods hbp \
    --precisions fp64,fp16 --plan-builds 3 --runs 20 --output $R/build-$round.jsonl > /dev/null 2>&1
  echo "bench round $round rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
rows = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + "/build-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if r.get("method") != "hbp": continue
        rows[(r["matrix"][:28], r["precision"], r["nnz"])].append(r["device_preprocess_ms"] / r["median_ms"])
print(f"{'matrix':28s} prec  nnz         SpMV-times a round            median  max")
for k, v in rows.items():
    print(f"{k[0]:28s} {k[1]:5s} {k[2]:10d}  " + " ".join(f"{x:5.1f}" for x in v) +
          f"   {statistics.median(v):5.1f} {max(v):5.1f}")
PY
cd $R && tar czf $OUT/run378-records.tar.gz build-*.jsonl
echo "done [$SECONDS s]"

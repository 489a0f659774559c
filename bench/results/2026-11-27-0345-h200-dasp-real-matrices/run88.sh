#!/usr/bin/env bash
# Run 88: DASP against cuSPARSE on every real matrix (.matrices: SuiteSparse, DLMC, other) in
# fp64, fp16, bf16: issue 8's floor (no matrix below 0.95x) on the code of 044b3dd.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run88.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/*
SECONDS=0
timeout 500 $b/tcsparse bench ${DIRS:-.matrices} --methods dasp,cusparse --precisions fp64,fp16,bf16 --runs 10 \
  --output $R/matrices.jsonl > $R/bench.txt 2>&1
echo "bench rc $? [$SECONDS s]"; tail -2 $R/bench.txt
python3 - $R/matrices.jsonl <<'PY'
import json, sys, collections, math
t = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    r = json.loads(line)
    if not r.get("check_passed", True): print("FAILED CHECK", r["matrix"], r["method"], r["precision"])
    t[(r["matrix"], r["precision"])][r["method"]] = r
for p in ("fp64", "fp16", "bf16"):
    s = sorted((v["cusparse"]["median_ms"] / v["dasp"]["median_ms"], m, v["dasp"]["nnz"], v["dasp"]["median_ms"] * 1e3)
               for (m, q), v in t.items() if q == p and "dasp" in v and "cusparse" in v)
    g = math.exp(sum(math.log(x[0]) for x in s) / len(s))
    print(p, len(s), "geomean %.3f min %.3f, below 0.95: %d" % (g, s[0][0], sum(x[0] < 0.95 for x in s)))
    for x in s[:8]: print("   %.3f %s nnz %d dasp %.2f us" % x)
PY
gzip -f $R/*.jsonl
cd $OUT && tar czf run88.tgz r run88.log && rm -rf r

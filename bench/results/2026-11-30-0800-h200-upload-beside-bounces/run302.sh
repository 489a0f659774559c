#!/usr/bin/env bash
# Run 302: the large suite's DASP plan builds with the pooled bounces (commit 6b34fdd), fp64 /
# fp16 / bf16, three builds each.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee -a $OUT/run302.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/tcsparse
SECONDS=0
timeout 420 $b/tcsparse bench --suite large --matrix-dir .mx --methods dasp --precisions fp64,fp16,bf16 \
  --plan-builds 3 --runs 10 --output $OUT/run302-large.jsonl > /dev/null 2>&1
echo "large rc $? [$SECONDS s]"
python3 - $OUT <<'PY'
import json, sys, statistics
for l in open(f"{sys.argv[1]}/run302-large.jsonl"):
    r = json.loads(l)
    if "median_ms" not in r: continue
    builds = r["details"].get("plan_builds_ms") or [r["plan_build_ms"]]
    print(f'{r["matrix"][:34]:34s} {r["precision"]} nnz {r["nnz"]:>10d} build {statistics.median(builds):7.2f} ms = {statistics.median(builds)/r["median_ms"]:6.1f} SpMV-times (max {max(builds)/r["median_ms"]:6.1f}) upload {r["upload_ms"]:6.2f} ms')
PY
gzip $OUT/*.jsonl

#!/usr/bin/env bash
# Run 203: the binary of commit 5586ab0 (csr_overlap as in runs 198-199). Plans from device CSR on
# the default suite, csr_overlap, every precision, five rounds (5 builds a case): how often a
# build of a matrix of 1 M nonzeros or more exceeds 3 SpMV-times (issue 9).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run203.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/tcsparse
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for round in 1 2 3 4 5; do
  timeout 100 $b/tcsparse bench --suite default --methods csr_overlap --precisions fp64,fp32,fp16,bf16 \
    --from-device --plan-builds 5 --runs 10 --output $R/from-device-$round.jsonl > /dev/null 2>&1
  echo "from-device round $round rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob
R = sys.argv[1]
print("plans from device CSR, matrices of 1 M nonzeros or more: build / fastest apply, the five highest a round")
for name in sorted(glob.glob(f"{R}/from-device-*.jsonl")):
    worst = []
    for line in open(name):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", r["matrix"], r["precision"])
        if r["nnz"] < 1e6: continue
        worst.append((round(r["plan_build_ms"] / r["median_ms"], 2), r["matrix"], r["precision"], round(r["plan_build_ms"], 3), r.get("details", {}).get("partition")))
    print(name.split("/")[-1], len(worst), sorted(worst)[-5:])
PY
cd $OUT && tar czf r.tgz r && rm -rf r

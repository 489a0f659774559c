#!/usr/bin/env bash
# Run 370: the final build (5c6e4cb: CsrMatrix::validate without a branch a nonzero, on top of
# run 369's). 1. the tca, AutoPlan and conformance GPU tests (16 shards); 2. DLMC plan builds at
# n = 256 (5 builds) of this build against 15e66fb's (`base`), alternating, two passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run370.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='SpmmLayouts.Tca*:*Conformance*tca*:AutoPlan.*:*ApplyPromises*tca*:*FromDeviceCsr*tca*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 240 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt | gzip -c > $OUT/run370-gpu-tests.txt.gz
for pass in 1 2; do for v in base new; do
  timeout 60 $b/tcsparse_$v bench .mx/dlmc --methods tca --precisions fp16 --spmm-n 256 \
    --runs 10 --plan-builds 5 --output $R/dlmc-$v-$pass.jsonl > $R/dlmc-$v-$pass.txt 2>&1
  echo "dlmc $v $pass rc $?"
done; done
python3 - $R <<'PY'
import json, sys, glob, statistics, collections
R = sys.argv[1]
for v in ("base", "new"):
    rs = [json.loads(l) for f in glob.glob(f"{R}/dlmc-{v}-*.jsonl") for l in open(f)]
    out = [r["plan_build_ms"] - sum(r["details"]["plan_phases_ms"].values()) for r in rs]
    print(f"{v}: build ms median {statistics.median(r['plan_build_ms'] for r in rs):.4f}, SpMM-times median "
          f"{statistics.median(r['plan_build_ms'] / r['median_ms'] for r in rs):.1f} (max {max(r['plan_build_ms'] / r['median_ms'] for r in rs):.1f}), "
          f"outside the phases median {statistics.median(out):.4f} ms, failed checks {sum(not r.get('check_passed', True) for r in rs)}")
PY
cd $R && tar czf $OUT/run370-records.tar.gz *.jsonl *.txt

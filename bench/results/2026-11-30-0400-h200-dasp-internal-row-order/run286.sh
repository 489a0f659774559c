#!/usr/bin/env bash
# Run 286: the committed code (row_order=auto from 2^19 rows). GPU tests of DASP, the plan
# builds, the conformance suite and the automatic choice (8 shards), memcheck of the row-order
# tests; R-MAT 18 / 19 and the default suite's R-MAT 20 under auto (fp64, fp16).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run286.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter="*Dasp*:*dasp*:PlanBuild.*:*Conformance*:*AutoChoice*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
echo "[$SECONDS s] memcheck"
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DaspGpu.InternalRowOrder*:DaspGpu.AutoRowOrder*' --gtest_brief=1 > $R/run286-memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/run286-memcheck.txt | tail -3
echo "[$SECONDS s] bench"
timeout 100 $b/tcsparse bench gen:rmat:scale=18,edge_factor=16,seed=3 gen:rmat:scale=19,edge_factor=16,seed=3 gen:rmat:scale=20,edge_factor=16,seed=3 \
  --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 3 --runs 30 --variant caller:row_order=caller \
  --output $R/run286-default.jsonl > /dev/null 2>&1; echo "default rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, statistics
R = sys.argv[1]
rec = [json.loads(l) for f in glob.glob(f"{R}/*.jsonl") for l in open(f)]
cus = {(r["matrix"], r["precision"]): r["median_ms"] for r in rec if r["method"] == "cusparse" and "median_ms" in r and not r.get("variant")}
for r in sorted((r for r in rec if r["method"] == "dasp" and "median_ms" in r), key=lambda r: (r["precision"], r["matrix"], r.get("variant") or "")):
    d = r["details"]
    builds = r.get("plan_builds_ms") or [r["plan_build_ms"]]
    print(f'{r["matrix"]:22s} {r.get("variant") or "auto":6s} {r["precision"]} {r["median_ms"]*1e3:8.1f} us {cus[(r["matrix"], r["precision"])]/r["median_ms"]:.3f}x cusparse '
          f'build {statistics.median(builds):6.2f} ms = {statistics.median(builds)/r["median_ms"]:5.1f} SpMV-times row_order {d.get("row_order")} share {d.get("long_column_share", "-")}')
PY
cd $R && gzip *.jsonl && cat tests-*.txt | gzip > run286-gpu-tests.txt.gz && rm tests-*.txt && cp run286-gpu-tests.txt.gz run286-memcheck.txt run286-default.jsonl.gz run286.log $OUT/
echo "[$SECONDS s]"

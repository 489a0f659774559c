#!/usr/bin/env bash
# Run 278: after arch::warp_min / warp_max replaced the DASP build kernels' own copies: DASP's and tca's GPU tests
# (8 shards) with the conformance cases of dasp and auto, memcheck and racecheck of the short-rows test.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run278.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter="*Dasp*:*dasp*:PlanBuild.*:*auto*:*Auto*:*Tca*:*tca*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
echo "[$SECONDS s] sanitizers"
for tool in memcheck racecheck; do
  timeout 200 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests \
    --gtest_filter='DaspGpu.ALayoutOfShortRowsOnly*' --gtest_brief=1 > $R/run278-$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/run278-$tool.txt | tail -3
done
cd $R && cat tests-*.txt | gzip > run278-gpu-tests.txt.gz && rm tests-*.txt && cp run278* $OUT/
echo "[$SECONDS s]"

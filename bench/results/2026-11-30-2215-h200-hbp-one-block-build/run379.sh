#!/usr/bin/env bash
# Run 379: the final build (comments, the parameter's help text, and a GPU test of
# detail::exclusive_sums, the scan of three): DeviceAlgorithmsTest, the hbp build tests, PlanBuild,
# 8 shards; memcheck of the new test.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r379; mkdir -p $R
exec > >(tee -a $OUT/run379.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/tcsparse_gpu_tests; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='DeviceAlgorithmsTest.*:HbpGpuBuild.*:PlanBuild.*'
pids=()
for s in $(seq 0 7); do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h "OK \] DeviceAlgorithmsTest" $R/tests-*.txt
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt | gzip -c > $OUT/run379-gpu-tests.txt.gz
timeout 120 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DeviceAlgorithmsTest.ExclusiveSums*' > $OUT/run379-memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $OUT/run379-memcheck.txt

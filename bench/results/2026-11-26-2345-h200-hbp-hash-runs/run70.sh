#!/usr/bin/env bash
# Run: the committed hash-runs kernel (the run67 code): every hbp GPU test, racecheck and memcheck
# of the probe-cluster test.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run70.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/t; chmod +x $b/t
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/t --gtest_filter="*hbp*:*Hbp*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
cat $R/tests-*.txt | grep -E "PASSED|FAILED|tests ran" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool $b/t --gtest_filter='HbpGpuBuild.LongProbeClustersGiveTheHostOrder' --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $?"; tail -2 $R/$tool.txt
done
rm -rf $R
echo "[$SECONDS s]"

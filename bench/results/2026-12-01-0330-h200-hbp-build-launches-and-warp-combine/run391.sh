#!/usr/bin/env bash
# Run 391: the final code (run 390's with the one-column-block task count set where it is known,
# comments): the HBP and device-algorithm GPU tests (8 shards), memcheck of the new tests and the
# build comparisons.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r391; mkdir -p $R
exec > >(tee -a $R/run391.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin391; mkdir -p $b
for f in .device-bin/tcsparse_gpu_tests.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*:DeviceAlgorithms*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/run391-gpu-tests.txt; rm $R/tests-*.txt
echo "[$SECONDS s] memcheck"
timeout 150 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='HbpGpu.CombineLists*:HbpGpuBuild.EdgeShapes*:HbpGpuBuild.BothBuilds*:HbpGpuBuildOnCatalogue.DeviceBuildGivesTheHostBuildsArraysInFp16/*:DeviceAlgorithms*.ExclusiveSums*' \
  --gtest_brief=1 > $R/run391-memcheck.txt 2>&1; echo "memcheck rc $?"; tail -3 $R/run391-memcheck.txt
cd $R && gzip -f run391-gpu-tests.txt && cp run391-gpu-tests.txt.gz run391-memcheck.txt run391.log $OUT/
echo "[$SECONDS s]"

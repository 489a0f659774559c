#!/usr/bin/env bash
# Run 398: the final tests of this change (the three-array scan removed, its test rewritten for two
# arrays, in place near 2^31): DeviceAlgorithms and the HBP GPU-build tests, memcheck of the scans.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run398.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin398; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 150 $b/tcsparse_gpu_tests --gtest_filter='DeviceAlgorithms*:HbpGpuBuild*:HbpGpu.*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "$? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
cat $R/tests-*.txt | grep -E "^\[  PASSED" | awk '{s+=$4} END {print "passed total", s}'
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/run398-gpu-tests.txt; rm $R/tests-*.txt; gzip $R/run398-gpu-tests.txt
echo "[$SECONDS s] memcheck"
timeout 60 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='DeviceAlgorithms*.ExclusiveSums*' --gtest_brief=1 > $R/run398-memcheck.txt 2>&1
echo "memcheck rc $?"; tail -3 $R/run398-memcheck.txt; echo "[$SECONDS s]"

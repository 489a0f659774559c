#!/usr/bin/env bash
# Run 260: the GPU tests of this change: DeviceAlgorithmsTest.* (new: the stable radix sorts
# against std::stable_sort), DASP's (its device build now waits once for two counts) and the
# conformance suite's DASP cases, in 8 shards; memcheck of the new tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run260.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 400 $b/tcsparse_gpu_tests --gtest_filter="DeviceAlgorithms*:*Dasp*:*dasp*:DeviceTest.*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
echo "[$SECONDS s] memcheck"
timeout 150 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='DeviceAlgorithms*' > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED|OK \]" $R/memcheck.txt | tail -8
cd $R && gzip tests-*.txt && tar czf $OUT/run260.tgz . && cp run260.log $OUT/
echo "[$SECONDS s]"

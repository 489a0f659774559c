#!/usr/bin/env bash
# Run 94: the automatic choice's GPU tests (and the conformance suite, which runs "auto") on the
# rule refitted with the H100 cublas_dense records.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee -a $OUT/run94.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b; xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/t; chmod +x $b/t
SECONDS=0
$b/t --gtest_list_tests --gtest_filter='*Auto*:*auto*' | grep -c "^  " 
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 400 $b/t --gtest_filter='*Auto*:*auto*:*Conformance*' --gtest_brief=1 > $OUT/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
cat $OUT/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $OUT/tests-*.txt | head -40
echo "[$SECONDS s]"

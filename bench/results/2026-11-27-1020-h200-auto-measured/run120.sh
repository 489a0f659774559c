#!/usr/bin/env bash
# Run 120: the GPU tests touched after run 119 (a brace in the auto SpMM trial test; csr_overlap's
# four-precision reference checks folded into one helper): every test naming auto, csr_overlap's
# every-precision reference tests, the warp-pass threshold test.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run120.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/tcsparse_gpu_tests; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter='*AutoPlan*:*auto*:*CsrOverlapGpuOnCatalogue.EveryPrecisionMatchesReference*:*BulkCopyEveryPrecisionMatchesReference*:*DirectReadsMatchReferenceInEveryPrecision*:CsrOverlapGpu.WarpPassAndRowGroupsAtTheirThresholdsMatchReference' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $OUT/run120-gpu-tests.txt; rm -rf $R

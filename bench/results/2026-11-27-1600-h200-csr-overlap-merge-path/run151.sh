#!/usr/bin/env bash
# Run 151: review mend (one launch constant for the per-tile kernels, "partition" in
# table_statistics): csr_overlap / csr_full_overlap GPU tests, 8 shards; memcheck of the merge tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run151.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/tcsparse_gpu_tests; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*CsrOverlap*:*csr_overlap*:*FullOverlap*:*full_overlap*'
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter="$F" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='*Merge*:*CsrOverlapGpu.AutoTakes*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
gzip -f $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

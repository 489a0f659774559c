#!/usr/bin/env bash
# Run 197: the device build's warp scans and maximum through the shared arch/warp.cuh helpers
# (warp_inclusive_sum, warp_max; same results by construction): the tca SpMM layout GPU tests
# (among them the device layout against the host builder's) and memcheck of the build.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run197.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/tcsparse_gpu_tests; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests \
    --gtest_filter='SpmmLayouts.Tca*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests197.txt; rm $R/tests-*.txt
timeout 100 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='SpmmLayouts.TcaTilesLayoutBuiltOnTheGpu*' --gtest_brief=1 > $R/memcheck197.txt 2>&1
echo "memcheck rc $?"; tail -3 $R/memcheck197.txt
cd $OUT && tar czf r.tgz r && rm -rf r

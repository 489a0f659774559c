#!/usr/bin/env bash
# Run 295: the committed build (one column-count kernel for the sample and for every column):
# the HBP and plan-build GPU tests (8 shards) and memcheck of the column order's tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run295.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 120 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*:PlanBuild.*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/run295-gpu-tests.txt; rm $R/tests-*.txt
timeout 60 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='HbpGpuBuild.HubsFirst*:HbpGpu.AutoColumnOrder*' --gtest_brief=1 > $R/run295-memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/run295-memcheck.txt | tail -3
cd $R && gzip run295-gpu-tests.txt && tar czf $OUT/run295.tgz run295* && cp run295.log $OUT/
echo "[$SECONDS s]"

#!/usr/bin/env bash
# Run 387: after the mend that has the one-column-block build kernel count a row's slots with
# slots_of_run (hbp_format.hpp) instead of a copy of it: the HBP GPU tests (8 shards) and memcheck
# of the one-block build comparisons.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r387; mkdir -p $R
exec > >(tee -a $R/run387.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin387; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/run387-gpu-tests.txt; rm $R/tests-*.txt
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='HbpGpuBuild.*OneBlock*:HbpGpuBuild.BothBuilds*:HbpGpuBuildOnCatalogue.DeviceBuildGivesTheHostBuildsArraysInFp16/*' \
  --gtest_brief=1 > $R/run387-memcheck.txt 2>&1; echo "memcheck rc $?"; tail -3 $R/run387-memcheck.txt
cd $R && gzip -f run387-gpu-tests.txt && cp run387-* $OUT/
echo "[$SECONDS s]"

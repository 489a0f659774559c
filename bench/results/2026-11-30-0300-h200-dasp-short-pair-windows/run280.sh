#!/usr/bin/env bash
# Run 280 (after run 279, where PlanBuild.BuildsOnTheGpuGiveTheirTemporaryMemoryBack found 42 MB
# of the pool kept after a 4 M-row DASP build, against 32 MB allowed): the 1+3 pairing's scratch
# is now the row sort's input array (no 4 MB temporary of its own), its window starts and pair
# offsets one small temporary. GPU tests of DASP and the plan builds (8 shards), memcheck of the
# pairing tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run280.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="*Dasp*:*dasp*:PlanBuild.*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
for i in 1 2 3; do
  $b/tcsparse_gpu_tests --gtest_filter='PlanBuild.BuildsOnTheGpuGiveTheirTemporaryMemoryBack' --gtest_brief=1 2>&1 | grep -E 'PASSED|FAILED|reserved' | head -3
done
echo "[$SECONDS s] memcheck"
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DaspGpu.OnesPaired*:AllSynthetic/DaspGpuOnCatalogue.DeviceBuildEqualsHostBuild/1*' --gtest_brief=1 > $R/run280-memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/run280-memcheck.txt | tail -3
cd $R && cat tests-*.txt | gzip > run280-gpu-tests.txt.gz && rm tests-*.txt && cp run280-gpu-tests.txt.gz run280-memcheck.txt run280.log $OUT/
echo "[$SECONDS s]"

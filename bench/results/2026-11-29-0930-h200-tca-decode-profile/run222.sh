#!/usr/bin/env bash
# Run 222: run 221's commit plus the fix it found (the tiles kernel's dynamic shared memory
# attribute set to the block opt-in maximum, not to the last plan's need), binary built off the
# GPU machine: the GPU tests of tca and of the cluster wrappers; memcheck and racecheck on the
# dependent-launch and split-K tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run222.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='SpmmLayouts.*:*Conformance*tca*:*ApplyPromises*tca*:*FromDeviceCsr*tca*:ArchClusterTest.*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 150 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A10 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
M='SpmmLayouts.TcaTilesAsADependentLaunch*:SpmmLayouts.TcaTilesSplitK*'
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter="$M" --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -3
done
cd $R && tar czf $OUT/run222-results.tgz . && cd - > /dev/null && rm -rf $R

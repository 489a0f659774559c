#!/usr/bin/env bash
# Run 205: the binaries of run 204 (commit b89be8c's code), the GPU tests of every plan from
# device CSR (every method: the device CSR check changed under all of them), tca's tests and the
# apply promises of every product, 16 shards.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run205.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*FromDevice*:*DeviceBuild*:*DeviceCsr*:*from_device*:SpmmLayouts.Tca*:*ApplyPromises*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 400 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
cat $R/tests-*.txt | grep -h "^\[  SKIPPED \]" | sort -u | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

#!/usr/bin/env bash
# Run 319: kernel=auto from device CSR takes gather where it does from host CSR (the plan
# downloads the CSR): the GPU tests of tca (SpmmLayouts, among them the new
# SpmmLayouts.TcaAutoFromDeviceCsrTakesGatherWhereItDoesFromHostCsr, the conformance and
# apply-promise cases, plans from device CSR), 16 shards.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run319.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='SpmmLayouts.*:*Conformance*tca*:*ApplyPromises*tca*:*FromDeviceCsr*tca*:AutoPlan.*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
grep -h "TcaAutoFromDeviceCsr\|TcaPlansFromDeviceCsr\|AutoPlan.FromDevice" $R/tests-*.txt
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
cd $R && gzip -c gpu-tests.txt > $OUT/run319-gpu-tests.txt.gz

#!/usr/bin/env bash
# Run 409: the GPU tests of the final build (3f95658's code) over HBP, csr_overlap (whose launch
# header now takes runs_sm90_code from arch/), the plan builds, the device algorithms, the
# conformance suite and the automatic choice, in 16 shards.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run409.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/tcsparse_gpu_tests; chmod +x $b/*
SECONDS=0
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_brief=1 \
    --gtest_filter='*Hbp*:*hbp*:CsrOverlap*:CsrFullOverlap*:DeviceAlgorithms*:PlanBuild*:*Conformance*:*AutoPlan*:*AutoChoice*' \
    > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo "[$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cd $R && cat tests-*.txt | gzip > run409-gpu-tests.txt.gz && rm tests-*.txt && echo "[$SECONDS s]"

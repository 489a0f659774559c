#!/usr/bin/env bash
# Run 246: the GPU tests and memcheck of run 245 after a mend (the medium fill takes its rows' CSR
# extents through row_extent, as the other fills do).
# GPU tests: DASP's own (with the new UpdateValues* tests), every method's conformance and apply
# promises (update_values against the reference, from host and device CSR, device and host
# values), plans from device CSR, PlanBuild.*; memcheck of the update and fill tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run246.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='DaspGpu*:*Conformance*:*ApplyPromises*:*FromDeviceCsr*dasp*:PlanBuild.*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 280 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]" | sort | uniq -c | head -20
echo "update tests run: $(cat $R/tests-*.txt | grep -c 'OK \].*UpdateValues')"
echo "gpu tests [$SECONDS s]"
timeout 200 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='DaspGpu.UpdateValues*:*ApplyPromises*UpdateValues*dasp*:AllSynthetic/DaspGpuOnCatalogue.UpdateValues*/1*:AllSynthetic/DaspGpuOnCatalogue.DeviceFillEqualsHostFill/*:DaspGpu.DeviceFillEqualsHostFillOnLargeMatrices' \
  --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
cd $R && gzip tests-*.txt && tar czf $OUT/run246.tgz . && cp run246.log $OUT/

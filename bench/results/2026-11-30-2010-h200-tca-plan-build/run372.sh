#!/usr/bin/env bash
# Run 372: upload_csr_temporary takes the pool only for CSRs that fit what the pool keeps between
# builds (else one cudaMalloc), after run 371 (hbp's CSR from the pool: PlanBuild.SmallHbpBuilds...
# failed, 50 MB of the pool kept unused; that change is reverted). The GPU tests: tca, AutoPlan,
# conformance and PlanBuild (with the new TcaBuildsKeepNoMoreOfThePool...), 16 shards.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run372.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='SpmmLayouts.Tca*:*Conformance*tca*:AutoPlan.*:*ApplyPromises*tca*:*FromDeviceCsr*tca*:PlanBuild.*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 240 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h "OK \] PlanBuild" $R/tests-*.txt
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt | gzip -c > $OUT/run372-gpu-tests.txt.gz

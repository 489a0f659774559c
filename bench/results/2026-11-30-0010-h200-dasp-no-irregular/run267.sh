#!/usr/bin/env bash
# Run 267: the committed rule (the fp64 kernel without the irregular part only where regular
# medium values are at least half the nonzeros): DASP's GPU tests (8 shards), memcheck of the
# new cases, and the side-by-side comparison with the authors' code built here
# (scripts/external-dasp.sh run --generate default, fp64 and fp16).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run267.log) 2>&1
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
timeout 60 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DaspGpu.ALayoutWithoutIrregularValues*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
echo "[$SECONDS s] external"
timeout 420 bash scripts/external-dasp.sh run --generate default --precisions fp64,fp16 --cli $b/tcsparse \
  --matrix-dir .external/matrices --out $R/external --budget-s 330 > $R/external-run.txt 2>&1
echo "external rc $? [$SECONDS s]"; tail -5 $R/external-run.txt
cat $R/external/comparison.md 2>/dev/null
cd $R && cat tests-*.txt | gzip > gpu-tests.txt.gz && rm tests-*.txt && tar czf $OUT/run267.tgz . && cp run267.log $OUT/
echo "[$SECONDS s]"

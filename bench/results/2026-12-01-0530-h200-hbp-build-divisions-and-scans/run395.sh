#!/usr/bin/env bash
# Run 395: run 394's build plus step 2's sort by column block alone (32-bit keys; the segments
# are in row order, so the row blocks ascend within a column block; one onesweep pass), the row
# blocks in an array of their own. GPU tests of HBP, DeviceAlgorithms, PlanBuild, conformance and
# the automatic choice (16 shards); memcheck of the build comparisons; ncu of the band's build;
# the hbp suite's builds, b578620's binary (tcsparse_old) and this one alternating, two rounds.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run395.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin395; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*:DeviceAlgorithms*:PlanBuild*:*Conformance*:*AutoPlan*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "$? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
cat $R/tests-*.txt | grep -E "^\[  PASSED" | awk '{s+=$4} END {print "passed total", s}'
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/run395-gpu-tests.txt; rm $R/tests-*.txt; gzip $R/run395-gpu-tests.txt
echo "[$SECONDS s] memcheck"
timeout 120 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='DeviceAlgorithms*.ExclusiveSums*:HbpGpuBuild.BothBuilds*:HbpGpuBuild.*Stripe*:HbpGpuBuild.*OneBlock*:HbpGpuBuildOnCatalogue.DeviceBuildGivesTheHostBuildsArraysInFp16/*' \
  --gtest_brief=1 > $R/run395-memcheck.txt 2>&1; echo "memcheck rc $?"; tail -3 $R/run395-memcheck.txt
echo "[$SECONDS s] ncu"
M=gen:banded:n=24000000,bandwidth=1,seed=68
timeout 60 ncu --metrics gpu__time_duration.sum --csv --print-units base --launch-count 60 \
  $b/tcsparse bench $M --methods hbp --precisions fp16 --plan-builds 1 --runs 1 \
  --output $R/ncu.jsonl > $R/run395-ncu-fp16.csv 2> /dev/null; echo "ncu rc $? [$SECONDS s]"
echo "[$SECONDS s] builds"
for round in 1 2; do
  order="old new"; [ $round = 2 ] && order="new old"
  for which in $order; do
    [ $SECONDS -gt 470 ] && break
    bin=$b/tcsparse; [ $which = old ] && bin=$b/tcsparse_old
    timeout 120 $bin bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 \
      --plan-builds 5 --runs 20 --output $R/run395-$which-$round.jsonl > /dev/null 2>&1
    echo "round $round $which rc $? [$SECONDS s]"
  done
done
# (then the summary of run397.sh, for run395's files, and tar czf run395-builds.tar.gz)

#!/usr/bin/env bash
# Run 394: hbp GPU build without a 64-bit division a nonzero (lane walk: the column block divided
# out only where a run starts, the position in the run counted), 32-bit divisions elsewhere in
# steps 1-2, detail::exclusive_sums over packed 64-bit words, the scans in place, combine rows
# scattered before step 2 (no combine_flag in step 2). HBP + DeviceAlgorithms GPU tests (8 shards),
# memcheck; ncu of the band's build; the hbp suite's builds, b578620's binary (tcsparse_old) and
# this one alternating, two rounds, five builds a plan.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run394.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin394; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*:DeviceAlgorithms*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/run394-gpu-tests.txt; rm $R/tests-*.txt; gzip $R/run394-gpu-tests.txt
echo "[$SECONDS s] memcheck"
timeout 150 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='DeviceAlgorithms*.ExclusiveSums*:HbpGpuBuild.BothBuilds*:HbpGpuBuild.*Stripe*:HbpGpuBuild.*OneBlock*:HbpGpuBuildOnCatalogue.DeviceBuildGivesTheHostBuildsArraysInFp16/*' \
  --gtest_brief=1 > $R/run394-memcheck.txt 2>&1; echo "memcheck rc $?"; tail -3 $R/run394-memcheck.txt
echo "[$SECONDS s] ncu"
M=gen:banded:n=24000000,bandwidth=1,seed=68
timeout 100 ncu --metrics gpu__time_duration.sum --csv --print-units base --launch-count 60 \
  $b/tcsparse bench $M --methods hbp --precisions fp16 --plan-builds 1 --runs 1 \
  --output $R/ncu.jsonl > $R/run394-ncu-fp16.csv 2> /dev/null; echo "ncu rc $? [$SECONDS s]"
echo "[$SECONDS s] builds"
for round in 1 2; do
  order="old new"; [ $round = 2 ] && order="new old"
  for which in $order; do
    bin=$b/tcsparse; [ $which = old ] && bin=$b/tcsparse_old
    timeout 170 $bin bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 \
      --plan-builds 5 --runs 20 --output $R/run394-$which-$round.jsonl > /dev/null 2>&1
    echo "round $round $which rc $? [$SECONDS s]"
  done
done
# (then the summary of run397.sh, for run394's files, and tar czf run394-builds.tar.gz)

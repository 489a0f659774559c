#!/usr/bin/env bash
# Run 396: the small one-column-block builds, where run 395's build ran 5-10 % slower than
# b578620's (rajat01, its replica): `tcsparse` = run 395's with slot i read as segment i where
# there is no sort; `tcsparse_b` = the same with the combine rows scattered after step 2 again (as
# in b578620; run396-combine-rows-after-step-2.patch); `tcsparse_old` = b578620. Six matrices,
# fp64 / fp16, five builds a plan, the three binaries in rotating order, three rounds. First the
# HBP and DeviceAlgorithms GPU tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run396.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin396; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*:DeviceAlgorithms*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "$? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/run396-gpu-tests.txt; rm $R/tests-*.txt; gzip $R/run396-gpu-tests.txt
echo "[$SECONDS s] builds"
M="gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61 gen:rmat:scale=18,edge_factor=48,seed=63 gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67 .mx/suitesparse/rajat01.mtx.gz gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=10 gen:banded:n=24000000,bandwidth=1,seed=68"
for round in 1 2 3; do
  case $round in 1) order="old a b";; 2) order="b old a";; 3) order="a b old";; esac
  for which in $order; do
    bin=$b/tcsparse; [ $which = old ] && bin=$b/tcsparse_old; [ $which = b ] && bin=$b/tcsparse_b
    timeout 60 $bin bench $M --methods hbp --precisions fp64,fp16 \
      --plan-builds 5 --runs 20 --output $R/run396-$which-$round.jsonl > /dev/null 2>&1
    echo "round $round $which rc $? [$SECONDS s]"
  done
done
# (then a summary as run397.sh's, and tar czf run396-builds.tar.gz)

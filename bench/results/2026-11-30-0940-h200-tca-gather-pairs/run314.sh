#!/usr/bin/env bash
# Run 314: the paired gather kernel of run 313 with a power of two of blocks a range (4096 x 11008:
# 8 blocks of 1376 columns) as p4, against builds with rings of 3 stages x 16 groups (s3x16) and
# 2 x 32 (s2x32), which fit two blocks an SM; the 24 LLM weights at n = 8 / 16, row-major, tiles
# and dense cuBLAS in the same runs; then Nsight Compute (full set, source counters) of p4 on
# 14336 x 4096 at 90 %, n = 8 and 16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run314.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
D=bench/results/2026-11-30-0940-h200-tca-gather-pairs
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1 2; do
for v in p4 s3x16 s2x32; do
  SECONDS=0
  bin=$b/tcsparse_$v; [ $v = p4 ] && bin=$b/tcsparse
  timeout 200 $bin bench $(weights 0.90 0.70 0.95) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 16,8 --layout row_major --runs 20 --variant gather:kernel=gather \
    --variant tiles:kernel=tiles --output $R/$v-$pass.jsonl > $R/bench-$v-$pass.txt 2>&1
  echo "bench $v pass $pass rc $? [$SECONDS s]"; grep -i "error\|fail" $R/bench-$v-$pass.txt | head -3
done
done
for v in p4 s3x16 s2x32; do echo "== $v"; python3 $D/summarize.py $R $v- 2>&1 | grep -v "shape (" | tail -6; done
python3 $D/summarize.py $R p4- 2>&1 | grep "4096x11008\|shape"
w=llm:14336x4096:s0.90:uniform
for n in 16 8; do
  SECONDS=0
  timeout 150 ncu --clock-control none --kernel-name regex:tca_gather_kernel --launch-skip 3 --launch-count 1 \
    --set full --import-source no -o $R/prof-$n $b/tcsparse bench $w --methods tca --precisions fp16 \
    --spmm-n $n --layout row_major --runs 5 --plan-builds 1 --param kernel=gather > $R/ncu-$n.log 2>&1
  echo "ncu n=$n rc $? [$SECONDS s]"; tail -1 $R/ncu-$n.log
  ncu --import $R/prof-$n.ncu-rep --page details --csv > $R/run314-ncu-n$n-details.csv 2>&1
  ncu --import $R/prof-$n.ncu-rep --page source --csv --print-source sass > $R/run314-ncu-n$n-source.csv 2>&1
done
cd $R && tar czf $OUT/run314-records.tar.gz *.jsonl bench-*.txt && tar czf $OUT/run314-ncu.tar.gz run314-ncu-*.csv

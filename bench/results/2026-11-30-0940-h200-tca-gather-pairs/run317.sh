#!/usr/bin/env bash
# Run 317: the committed build (run 316's code; comments, the kernel description and the
# experiment hook of the independent-MMA count changed since): the 24 LLM weights at n = 8 / 16,
# row-major, one pass; then Nsight Compute (full set, source counters) of gather on 14336 x 4096
# at 90 %, n = 8 and 16, two blocks an SM.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run317.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
D=bench/results/2026-11-30-0940-h200-tca-gather-pairs
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
SECONDS=0
timeout 200 $b/tcsparse bench $(weights 0.90 0.70 0.95) --methods tca,cublas_dense --precisions fp16 \
  --spmm-n 16,8 --layout row_major --runs 20 --variant gather:kernel=gather \
  --variant tiles:kernel=tiles --output $R/final-1.jsonl > $R/bench-final-1.txt 2>&1
echo "bench rc $? [$SECONDS s]"; tail -1 $R/bench-final-1.txt
python3 $D/summarize.py $R final- 2>&1 | grep -v "shape (" | tail -6
w=llm:14336x4096:s0.90:uniform
for n in 16 8; do
  SECONDS=0
  timeout 150 ncu --clock-control none --kernel-name regex:tca_gather_kernel --launch-skip 3 --launch-count 1 \
    --set full --import-source no -o $R/prof-$n $b/tcsparse bench $w --methods tca --precisions fp16 \
    --spmm-n $n --layout row_major --runs 5 --plan-builds 1 --param kernel=gather > $R/ncu-$n.log 2>&1
  echo "ncu n=$n rc $? [$SECONDS s]"; tail -1 $R/ncu-$n.log
  ncu --import $R/prof-$n.ncu-rep --page details --csv > $R/run317-ncu-n$n-details.csv 2>&1
  ncu --import $R/prof-$n.ncu-rep --page source --csv --print-source sass > $R/run317-ncu-n$n-source.csv 2>&1
done
cd $R && tar czf $OUT/run317-records.tar.gz *.jsonl bench-*.txt && tar czf $OUT/run317-ncu.tar.gz run317-ncu-*.csv

#!/usr/bin/env bash
# Run 329 (bench and profile only; its first call gave the variants without kernel=gather, which
# tca refused: run again with it, the build of run 328): B's rows split over more blocks of a
# range, summed in a cluster (each block stages a half or a quarter of B, for twice or four
# times the rows): --variant c2048:kernel=gather,chunk_columns=2048, c1024:chunk_columns=1024 and
# c1376:chunk_columns=1376 against auto, the 16 LLM weights at 90 / 95 %, n = 8 / 16 / 32, two
# passes; then Nsight Compute on auto, 14336 x 4096 at 90 %, n = 16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run329.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=bench/results/2026-11-30-1200-h200-tca-gather-resident/summarize.py
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1 2; do
  SECONDS=0
  timeout 200 $b/tcsparse bench $(weights 0.90 0.95) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 32,16,8 --layout row_major --runs 20 --variant c2048:kernel=gather,chunk_columns=2048 \
    --variant c1024:kernel=gather,chunk_columns=1024 --variant c1376:kernel=gather,chunk_columns=1376 \
    --output $R/new-$pass.jsonl > $R/bench-$pass.txt 2>&1
  echo "bench pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-$pass.txt
done
python3 $S $R new- 2>&1 | grep -v "shape (" | tail -7
python3 $S $R new- 2>&1 | head -52
cd $R && tar czf $OUT/run329-records.tar.gz *.jsonl bench-*.txt
cd - > /dev/null
w=llm:14336x4096:s0.90:uniform
SECONDS=0
timeout 120 ncu --clock-control none --kernel-name regex:tca_gather_kernel --launch-skip 3 --launch-count 1 \
  --set full --import-source no -o $R/prof-16 $b/tcsparse bench $w --methods tca --precisions fp16 \
  --spmm-n 16 --layout row_major --runs 5 --plan-builds 1 > $R/ncu-16.log 2>&1
echo "ncu rc $? [$SECONDS s]"; tail -1 $R/ncu-16.log
ncu --import $R/prof-16.ncu-rep --page details --csv > $R/run329-ncu-n16-details.csv 2>&1
ncu --import $R/prof-16.ncu-rep --page source --csv --print-source sass > $R/run329-ncu-n16-source.csv 2>&1
grep -E '"Duration"|"Compute \(SM\) Throughput"|"Memory Throughput"|"L2 Cache Throughput"|"DRAM Throughput"|"Registers Per Thread"' $R/run329-ncu-n16-details.csv | cut -c1-300 | head -12
cd $R && tar czf $OUT/run329-ncu.tar.gz run329-ncu-*.csv

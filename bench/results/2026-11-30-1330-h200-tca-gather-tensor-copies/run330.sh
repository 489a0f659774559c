#!/usr/bin/env bash
# Run 330 (bench only, the build of run 328): 4096 x 11008 (90 / 95 %, uniform and skewed) with
# the fewest blocks a range whose stages fit 128 KiB, not rounded up to a power of two: n = 16
# three blocks of 3672 columns (auto: 4 of 2752), n = 32 six of 1840 (auto's gather: 8 of 1376;
# auto itself takes tiles there), beside 2048 (6 blocks, the last of 768), two passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r330; mkdir -p $R
exec > >(tee -a $OUT/run330.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=bench/results/2026-11-30-1200-h200-tca-gather-resident/summarize.py
w=""; for s in 0.90 0.95; do for d in uniform skewed; do w="$w llm:4096x11008:s$s:$d"; done; done
for pass in 1 2; do
  SECONDS=0
  timeout 200 $b/tcsparse bench $w --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 32,16 --layout row_major --runs 20 --variant gather:kernel=gather \
    --variant c3672:kernel=gather,chunk_columns=3672 --variant c1840:kernel=gather,chunk_columns=1840 \
    --variant c2048:kernel=gather,chunk_columns=2048 --output $R/new-$pass.jsonl > $R/bench-$pass.txt 2>&1
  echo "bench pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-$pass.txt
done
python3 $S $R new- 2>&1 | grep -v "shape (" | head -40
cd $R && tar czf $OUT/run330-records.tar.gz *.jsonl bench-*.txt

#!/usr/bin/env bash
# Run 354: with B^T's boxes in one copy, does gather now beat tiles with column-major B below
# kernel=auto's 2^21 nonzeros (4096 x 4096 at 90 / 95 %)? auto and --variant gather:kernel=gather
# on the 16 LLM weights at 90 / 95 %, n = 8 / 16 / 32, column-major, two passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run354.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=bench/results/2026-11-30-1200-h200-tca-gather-resident/summarize.py
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1 2; do
  SECONDS=0
  timeout 100 $b/tcsparse bench $(weights 0.90 0.95) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 32,16,8 --layout column_major --runs 20 --variant gather:kernel=gather \
    --output $R/pass-$pass.jsonl > $R/bench-$pass.txt 2>&1
  echo "bench pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-$pass.txt
done
python3 $S $R pass- 2>&1 | tail -70
cd $R && tar czf $OUT/run354-records.tar.gz *.jsonl bench-*.txt; cd - > /dev/null

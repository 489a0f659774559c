#!/usr/bin/env bash
# Run 226: run 225's comparison with column-major B and C: the 8 LLM weights at 70 and 90 %,
# n = 8 / 16 / 32, dense cuBLAS and the old (c3cb9fc) and new binaries' tca, two rounds.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run226.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/tcsparse_old.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
SECONDS=0
for round in 1 2; do
  timeout 200 $b/tcsparse_old bench $(weights 0.70 0.90) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 8,16,32 --layout column_major --runs 20 --output $R/old-$round.jsonl > /dev/null 2>&1
  echo "old round $round rc $? [$SECONDS s]"
  timeout 200 $b/tcsparse bench $(weights 0.70 0.90) --methods tca --precisions fp16 \
    --spmm-n 8,16,32 --layout column_major --runs 20 --output $R/new-$round.jsonl > /dev/null 2>&1
  echo "new round $round rc $? [$SECONDS s]"
done
python3 bench/results/2026-11-29-1130-h200-tca-wave-chunks/summarize.py $R
cd $R && tar czf $OUT/run226-results.tgz . && cd - > /dev/null && rm -rf $R

#!/usr/bin/env bash
# Run 346: tca kernel=gather with column-major B and C (the layout of activations X^T and outputs
# Y^T when a framework computes Y = X W^T with X and Y row-major). "new": B's columns staged by
# 16-byte loads of 8 rows, transposed into the staged rows by the threads; "base": 905bc14,
# element by element. The 24 LLM weights at 70 / 90 / 95 %, n = 8 / 16 / 32, column-major,
# auto and --variant gather:kernel=gather, dense cuBLAS in the same runs, two passes; then
# row-major auto (new) once for reference.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run346.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=bench/results/2026-11-30-1200-h200-tca-gather-resident/summarize.py
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1 2; do
  for v in new base; do
    SECONDS=0
    bin=$b/tcsparse; [ $v != new ] && bin=$b/tcsparse_$v
    timeout 150 $bin bench $(weights 0.90 0.95 0.70) --methods tca,cublas_dense --precisions fp16 \
      --spmm-n 32,16,8 --layout column_major --runs 20 --variant gather:kernel=gather \
      --output $R/$v-$pass.jsonl > $R/bench-$v-$pass.txt 2>&1
    echo "bench $v pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-$v-$pass.txt
  done
done
SECONDS=0
timeout 100 $b/tcsparse bench $(weights 0.90 0.95 0.70) --methods tca,cublas_dense --precisions fp16 \
  --spmm-n 32,16,8 --layout row_major --runs 20 --output $R/rowmajor-1.jsonl > $R/bench-rowmajor-1.txt 2>&1
echo "bench row-major rc $? [$SECONDS s]"; tail -1 $R/bench-rowmajor-1.txt
for v in new base rowmajor; do echo "== $v"; python3 $S $R $v- 2>&1 | grep -v "shape (" | tail -9; done
python3 $S $R new- 2>&1 | head -80
cd $R && tar czf $OUT/run346-records.tar.gz *.jsonl bench-*.txt; cd - > /dev/null

#!/usr/bin/env bash
# Run 332 (bench only): B's tensor copies in another order or size, builds of the committed tree
# (2d9f786, "base": 256-line boxes, every block in box order) with one change each: "rot256"
# (each block starts at box range % boxes), "rot64" (boxes of 64 lines, rotated), "norot64"
# (boxes of 64 lines in order). The 16 LLM weights at 90 / 95 %, n = 8 / 16 / 32, row-major,
# dense cuBLAS in the same runs, two passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run332.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=bench/results/2026-11-30-1200-h200-tca-gather-resident/summarize.py
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1 2; do
  for v in base rot256 rot64 norot64; do
    SECONDS=0
    timeout 100 $b/tcsparse_$v bench $(weights 0.90 0.95) --methods tca,cublas_dense --precisions fp16 \
      --spmm-n 32,16,8 --layout row_major --runs 20 --output $R/$v-$pass.jsonl > $R/bench-$v-$pass.txt 2>&1
    echo "bench $v pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-$v-$pass.txt
  done
done
for v in base rot256 rot64 norot64; do echo "== $v"; python3 $S $R $v- 2>&1 | grep -v "shape (" | tail -6; done
python3 $S $R rot64- 2>&1 | grep -E "14336x4096:s0.90"
python3 $S $R base- 2>&1 | grep -E "14336x4096:s0.90"
cd $R && tar czf $OUT/run332-records.tar.gz *.jsonl bench-*.txt

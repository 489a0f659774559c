#!/usr/bin/env bash
# Run 347: run 346 with the column-major staging loading 8 pieces a thread before storing them.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run347.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=bench/results/2026-11-30-1200-h200-tca-gather-resident/summarize.py
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1; do
  for v in new base; do
    SECONDS=0
    bin=$b/tcsparse; [ $v != new ] && bin=$b/tcsparse_$v
    timeout 150 $bin bench $(weights 0.90 0.95 0.70) --methods tca,cublas_dense --precisions fp16 \
      --spmm-n 32,16,8 --layout column_major --runs 20 --variant gather:kernel=gather \
      --output $R/$v-$pass.jsonl > $R/bench-$v-$pass.txt 2>&1
    echo "bench $v pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-$v-$pass.txt
  done
done
for v in new base; do echo "== $v"; python3 $S $R $v- 2>&1 | grep -v "shape (" | tail -9; done
python3 $S $R new- 2>&1 | grep -E " (8|16) " | head -50
cd $R && tar czf $OUT/run347-records.tar.gz *.jsonl bench-*.txt; cd - > /dev/null

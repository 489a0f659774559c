#!/usr/bin/env bash
# Run 339 (bench only): tca kernel=gather's ring of groups staged ahead in shared memory, builds of
# the tree at 6d4ad0e ("base": kGatherStages 2 x kGatherStageGroups 32, one stage of 32 groups in
# flight a warp) with one change each: "st4g16" (4 stages of 16: 48 groups in flight, the same
# 64 KiB ring) and "st3g16" (3 of 16: 32 groups in flight, a 48 KiB ring). The 16 LLM weights at
# 90 / 95 %, n = 8 / 16 / 32, row-major, dense cuBLAS in the same runs, two passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run339.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=bench/results/2026-11-30-1200-h200-tca-gather-resident/summarize.py
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1 2; do
  for v in base st4g16 st3g16; do
    SECONDS=0
    timeout 100 $b/tcsparse_$v bench $(weights 0.90 0.95) --methods tca,cublas_dense --precisions fp16 \
      --spmm-n 32,16,8 --layout row_major --runs 20 --output $R/$v-$pass.jsonl > $R/bench-$v-$pass.txt 2>&1
    echo "bench $v pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-$v-$pass.txt
  done
done
for v in base st4g16 st3g16; do echo "== $v"; python3 $S $R $v- 2>&1 | grep -v "shape (" | tail -6; done
for v in base st4g16 st3g16; do python3 $S $R $v- 2>&1 | grep -E "(14336x4096|4096x4096):s0.90" | sed "s/^/$v /"; done
cd $R && tar czf $OUT/run339-records.tar.gz *.jsonl bench-*.txt

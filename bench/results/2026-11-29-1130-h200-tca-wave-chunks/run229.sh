#!/usr/bin/env bash
# Run 229: where the DLMC products at n = 256 spend their last microseconds against dense cuBLAS:
# the 150 DLMC matrices at 90 % (.mx/dlmc), n = 256 (and 2048), column-major, tca at its defaults
# (commit 2721eca) against one chunk (no split-K: chunk_columns=1048576), one chunk in slices of 8,
# split_k=global, and the plain launch (dependent_launch=off), with dense cuBLAS, one round.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run229.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 280 $b/tcsparse bench .mx/dlmc --methods tca,cublas_dense --precisions fp16 --spmm-n 256,2048 \
  --layout column_major --runs 10 --variant nosplit:kernel=tiles,chunk_columns=1048576 \
  --variant nosplit8:kernel=tiles,chunk_columns=1048576,slice_columns=8 \
  --variant global:kernel=tiles,split_k=global --variant plain:kernel=tiles,dependent_launch=off \
  --output $R/dlmc.jsonl > /dev/null 2>&1
echo "dlmc rc $? [$SECONDS s]"
python3 bench/results/2026-11-29-1130-h200-tca-wave-chunks/summarize_dlmc_variants.py $R
cd $R && tar czf $OUT/run229-results.tgz . && cd - > /dev/null && rm -rf $R

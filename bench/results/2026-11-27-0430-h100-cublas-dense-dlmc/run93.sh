#!/usr/bin/env bash
# Run 93 (H100): cublas_dense and cusparse SpMM fp64 at n = 256, row-major, on the DLMC 0.9
# matrices: the H100 records the auto fit lacks (its cublas_dense choices there were never timed).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee -a $OUT/run93.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b; xz -dc .device-bin/tcsparse_new.xz > $b/tcsparse; chmod +x $b/tcsparse
SECONDS=0
timeout 400 $b/tcsparse bench .matrices --methods cublas_dense,cusparse --precisions fp64 --spmm-n 256 \
  --layout row_major --runs 10 --output $OUT/h100-dlmc-spmm-fp64.jsonl > $OUT/bench.txt 2>&1
echo "bench rc $? [$SECONDS s]"; tail -2 $OUT/bench.txt
gzip -f $OUT/h100-dlmc-spmm-fp64.jsonl

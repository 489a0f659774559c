#!/usr/bin/env bash
# Run 162: experiment, second sweep (rows interleaved across the vectors of a warp, fp16 too, ten matrices). CSR-vector kernels that read global memory directly with several rows of a
# vector in flight (.exp/k1/rowvec.cu), against cuSPARSE in the same process; then tcsparse's
# csr_overlap and cuSPARSE on the same matrices through the CLI.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run162.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/rowvec.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 420 $b/rowvec .mx > $R/rowvec.txt 2>&1; echo "rowvec rc $? [$SECONDS s]"
cat $R/rowvec.txt
gzip -f $R/*.jsonl $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

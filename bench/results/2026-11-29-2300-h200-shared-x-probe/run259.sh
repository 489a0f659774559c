#!/usr/bin/env bash
# Run 259: tcsparse_shared_x_probe (bench/shared_x_probe.cu) on the hbp suite's matrices whose x
# fits the L2, third version: clusters of 2 and 4 with three stages of x, the cluster barrier's
# arrival after stripe t waited for only after stripe t + 1 (was a cluster_sync a stripe).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run259.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
echo "[$SECONDS s] memcheck on a small R-MAT"
timeout 120 compute-sanitizer --tool memcheck $b/tcsparse_shared_x_probe rmat:scale=12,edge_factor=16,seed=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|difference" $R/memcheck.txt | head -12
for spec in \
  "rmat:scale=18,edge_factor=48,seed=63" \
  "random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67" \
  "rmat:scale=19,edge_factor=48,seed=64" \
  "rmat:scale=20,edge_factor=48,seed=65" \
  "rmat:scale=21,edge_factor=48,seed=66" \
  ; do
  echo "[$SECONDS s] $spec"
  timeout 200 $b/tcsparse_shared_x_probe "$spec"; echo "rc $?"
done
cd $R && tar czf $OUT/run259.tgz . && cp run259.log $OUT/
echo "[$SECONDS s]"

#!/usr/bin/env bash
# Run 180: the GPU side of a csr_overlap plan build from device CSR. 1. api_costs with chains of
# 1-6 small kernels then a copy and a wait; 2. Nsight Compute's duration of every kernel of one
# build from device CSR (the check's and the table's) on pruned_16k and stencil2d_2000, bf16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run180.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
.device-bin/api_costs
for m in gen:pruned:rows=16384,cols=16384,sparsity=0.9,seed=9 gen:stencil2d:nx=2000,ny=2000,seed=1; do
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum \
    -k "regex:check_|classify|scan_tile|scatter_table" -c 12 \
    $b/tcsparse bench $m --methods csr_overlap --precisions bf16 --runs 1 --warmup-ms 0 \
    --from-device --plan-builds 1 --output /tmp/n.jsonl > $R/ncu-$(echo $m | cut -d: -f2).txt 2>&1
  echo "ncu $m rc $? [$SECONDS s]"
done
grep -h -E "check_|classify|scan_tile|scatter_table|duration" $R/ncu-*.txt | sed -e 's/(tcsparse::[^)]*)//g' | cut -c1-120 | head -60
cd $OUT && tar czf r.tgz r && rm -rf r

#!/usr/bin/env bash
# Run 400: Nsight Compute of hbp's SpMV and combine kernels and cuSPARSE's on circuit-like 680 k
# (fp64), where hbp runs 0.55x cuSPARSE: speed of light, occupancy, warp states, memory workload.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run400.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin400; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
M=gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61
for m in hbp cusparse; do
  timeout 120 ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section LaunchStats --launch-skip 6 --launch-count 3 \
    -k regex:'spmv|combine|csrmv|Csr|csr' \
    $b/tcsparse bench $M --methods $m --precisions fp64 --runs 3 --output $R/x.jsonl > $R/run400-ncu-$m.txt 2>&1
  echo "ncu $m rc $? [$SECONDS s]"
done
grep -E "^  [a-z_:<>]+.*\(|Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Stall|Warp Cycles Per Issued|Issued Warp Per|L1/TEX Hit|L2 Hit|Block Limit|Waves Per SM|Grid Size|Block Size" $R/run400-ncu-*.txt | head -120

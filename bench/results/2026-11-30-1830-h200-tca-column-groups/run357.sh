#!/usr/bin/env bash
# Run 357: where column-major B still costs 2-3 us over row-major B in tca's gather kernel.
# Nsight Compute (full set, SASS source counters) of kernel=gather on 14336 x 4096 at 90 %, n = 16,
# row-major and column-major B and C, the final build (16a3a7a).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run357.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
w=llm:14336x4096:s0.90:uniform
for layout in row_major column_major; do
  SECONDS=0
  timeout 200 ncu --clock-control none --kernel-name regex:tca_gather_kernel --launch-skip 3 --launch-count 1 \
    --set full --import-source no -o $R/prof-$layout $b/tcsparse bench $w --methods tca --precisions fp16 \
    --spmm-n 16 --layout $layout --runs 5 --plan-builds 1 --param kernel=gather > $R/ncu-$layout.log 2>&1
  echo "ncu $layout rc $? [$SECONDS s]"; tail -1 $R/ncu-$layout.log
  ncu --import $R/prof-$layout.ncu-rep --page details --csv > $R/run357-ncu-$layout-details.csv 2>&1
  ncu --import $R/prof-$layout.ncu-rep --page source --csv --print-source sass > $R/run357-ncu-$layout-source.csv 2>&1
  grep -E '"(Duration|Elapsed Cycles|Executed Ipc Active|Issue Slots Busy|Memory Throughput|DRAM Throughput|L2 Hit Rate|Achieved Occupancy|Registers Per Thread|Dynamic Shared Memory Per Block|Shared Store Bank Conflicts|Block Limit Shared Mem)"' $R/run357-ncu-$layout-details.csv | awk -F'","' '{print $(NF-2) " = " $NF " " $(NF-1)}' | head -20
done
cd $R && tar czf $OUT/run357-ncu.tar.gz run357-ncu-*.csv ncu-*.log

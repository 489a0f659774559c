#!/usr/bin/env bash
# Run 129: ncu of tca tiles kernels, the run-staging kernel (tcsparse) against the previous one
# (tcsparse-old): decode 4096 x 4096 at 70 % (n = 16, row-major) and prefill at 95 % (n = 1024,
# column-major).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run129.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/tcsparse-old.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters"
for bin in tcsparse tcsparse-old; do
  SECONDS=0
  timeout 120 ncu --clock-control none -k regex:tca_tiles -s 3 -c 1 $S $b/$bin bench llm:4096x4096:s0.70:uniform \
    --methods tca --param kernel=tiles --precisions fp16 --spmm-n 16 --layout row_major --runs 2 --plan-builds 1 > $R/ncu-decode-$bin.txt 2>&1
  echo "decode $bin rc $? [$SECONDS s]"
  SECONDS=0
  timeout 120 ncu --clock-control none -k regex:tca_tiles -s 3 -c 1 $S $b/$bin bench llm:4096x4096:s0.95:uniform \
    --methods tca --param kernel=tiles --precisions fp16 --spmm-n 1024 --layout column_major --runs 2 --plan-builds 1 > $R/ncu-prefill-$bin.txt 2>&1
  echo "prefill $bin rc $? [$SECONDS s]"
done
for f in $R/ncu-*.txt; do echo "== $f"; grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Dynamic Shared|Block Limit|Warp Cycles Per Issued|Issued Warp|No Eligible|L2 Hit|L1/TEX Hit|Mem Busy|Max Bandwidth|Stall|stall" $f | head -40; done
cd $OUT && tar czf r.tgz r && rm -rf r

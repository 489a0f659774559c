#!/usr/bin/env bash
# Run 306: where tca kernel=gather spends its time: Nsight Compute (full set, SASS source
# counters) of one launch on 4096 x 4096 at 70 % sparsity, n = 16, chunks of 512 columns (run 305:
# 31 us against dense cuBLAS's 11.6), and the SASS of that instantiation.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run306.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
cuobjdump -sass -fun '_ZN8tcsparse3tca6device17tca_gather_kernelI6__halfS3_Li16ELb1EEEvNS1_15GatherArgumentsIT0_EE' $b/tcsparse > $OUT/run306-gather-half-16-row-major.sass 2>&1
wc -l $OUT/run306-gather-half-16-row-major.sass
w=llm:4096x4096:s0.70:uniform
timeout 150 ncu --clock-control none --kernel-name regex:tca_gather_kernel --launch-skip 3 --launch-count 1 \
  --set full --import-source no -o $R/prof $b/tcsparse bench $w --methods tca --precisions fp16 \
  --spmm-n 16 --layout row_major --runs 5 --plan-builds 1 --param kernel=gather --param chunk_columns=512 > $R/ncu.log 2>&1
echo "ncu rc $? [$SECONDS s]"; tail -3 $R/ncu.log
ncu --import $R/prof.ncu-rep --page details --csv > $OUT/run306-ncu-details.csv 2>&1
ncu --import $R/prof.ncu-rep --page source --csv --print-source sass > $OUT/run306-ncu-source.csv 2>&1
echo "exports [$SECONDS s]"
grep -E '"(Duration|Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Executed Ipc Active|Issue Slots Busy|Memory Throughput|DRAM Throughput|Warp Cycles Per Issued Instruction|Executed Instructions|No Eligible|Block Limit Shared Mem|Block Limit Registers|Waves Per SM|Grid Size|Cluster Size|L1/TEX Hit Rate|Shared Memory Bandwidth|Dynamic Shared Memory Per Block)"' $OUT/run306-ncu-details.csv | cut -c1-250
grep -i "stall\|warp state" $OUT/run306-ncu-details.csv | cut -c1-300 | head -40
gzip $OUT/run306-ncu-source.csv

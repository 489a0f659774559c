#!/usr/bin/env bash
# Run 312: does the gather kernel wait on its chain of MMAs? Builds of the diagonal gather kernel
# with 1 (9a4465c's kernel, its loop unrolled 2 groups instead of 4), 4 and 8 independent MMAs
# (accumulator sets taken by
# consecutive groups in turn), on the 16 LLM weights at 90 / 95 %, n = 8 and 16, row-major;
# then Nsight Compute (full set, source counters) of the 1- and 4-MMA builds on
# 14336 x 4096 at 90 %, n = 16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run312.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
D=bench/results/2026-11-30-0940-h200-tca-gather-pairs
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1 2; do
for v in m1 m4 m8; do
  SECONDS=0
  timeout 200 $b/tcsparse_$v bench $(weights 0.90 0.95) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 16,8 --layout row_major --runs 20 --variant gather:kernel=gather \
    --output $R/$v-$pass.jsonl > $R/bench-$v-$pass.txt 2>&1
  echo "bench $v pass $pass rc $? [$SECONDS s]"
done
done
for v in m1 m4 m8; do echo "== $v"; python3 $D/summarize.py $R $v- 2>&1 | grep -v "shape (" | tail -8; done
w=llm:14336x4096:s0.90:uniform
for v in m1 m4; do
  SECONDS=0
  timeout 150 ncu --clock-control none --kernel-name regex:tca_gather_kernel --launch-skip 3 --launch-count 1 \
    --set full --import-source no -o $R/prof-$v $b/tcsparse_$v bench $w --methods tca --precisions fp16 \
    --spmm-n 16 --layout row_major --runs 5 --plan-builds 1 --param kernel=gather > $R/ncu-$v.log 2>&1
  echo "ncu $v rc $? [$SECONDS s]"; tail -2 $R/ncu-$v.log
  ncu --import $R/prof-$v.ncu-rep --page details --csv > $OUT/run312-ncu-$v-details.csv 2>&1
  ncu --import $R/prof-$v.ncu-rep --page source --csv --print-source sass > $OUT/run312-ncu-$v-source.csv 2>&1
  grep -E '"(Duration|Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Executed Ipc Active|Issue Slots Busy|DRAM Throughput|Warp Cycles Per Issued Instruction|Executed Instructions|No Eligible|Shared Memory Bandwidth|Grid Size|Block Limit Shared Mem)"' $OUT/run312-ncu-$v-details.csv | awk -F'","' '{print $(NF-3)": "$(NF-1)}' 
  gzip $OUT/run312-ncu-$v-details.csv $OUT/run312-ncu-$v-source.csv
done
cd $R && for f in m?-?.jsonl; do gzip -c $f > $OUT/run312-$f.gz; done

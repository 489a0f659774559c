#!/usr/bin/env bash
# Run 155: Nsight Compute metrics (SM clock, instructions, DRAM and SM throughput, occupancy) of
# the device CSR check and table kernels of one stencil2d_2000 fp16 from-device build (the run
# 154 binary).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run155.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,launch__registers_per_thread,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active
for clock in none base; do
  timeout 120 ncu --clock-control $clock --metrics $M -k 'regex:check_|classify|scatter_table|scan_tile' \
    $b/tcsparse bench --methods csr_overlap --precisions fp16 --from-device --plan-builds 1 --runs 1 --warmup-ms 0 --output /tmp/n.jsonl "gen:stencil2d:nx=2000,ny=2000,seed=1" > $R/ncu-$clock.txt 2>&1
  echo "ncu $clock rc $?"
  grep -E "\(1056|\(977|\(1, 1, 1\)x\(1024" -A12 $R/ncu-$clock.txt | grep -vE "^--$|Section|----" | sed -E 's/ +/ /g' | cut -c1-130
done
gzip -f $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

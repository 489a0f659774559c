#!/usr/bin/env bash
# Run 141 (profile only): why pruned_16k (every row long, each one piece) runs 2-3 % slower with
# this change than with 377ee4f (tcsparse-old) though its pieces are the same: Nsight Compute of
# the long-row kernel, fp32 and fp64, both binaries; and the plan's stats.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run141.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
M="gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,l1tex__t_sector_hit_rate.pct,smsp__inst_executed.sum"
for bin in tcsparse tcsparse-old; do
  for p in fp32 fp64; do
    timeout 60 ncu --clock-control none --metrics $M -k 'regex:long_row|combine|warp_direct' -c 3 \
      $b/$bin bench gen:pruned:rows=16384,cols=16384,sparsity=0.9,seed=9 --methods csr_overlap --precisions $p \
      --runs 1 --warmup-ms 0 --plan-builds 1 --output $R/s-$bin-$p.jsonl > $R/ncu-$bin-$p.txt 2>&1
    echo "== $bin $p rc $?"
    grep -E "^  [a-z_ ]*(void|long|warp|combine)|gpu__time|warps_active|grid_size|block_size|registers|sectors|dram__bytes|hit_rate|inst_exec" $R/ncu-$bin-$p.txt | cut -c1-100 | head -12
    python3 -c "
import json
for l in open('$R/s-$bin-$p.jsonl'):
  r=json.loads(l); d=r['details']; print({k: d.get(k) for k in ['long_rows','long_row_tasks','long_row_piece','long_row_blocks','batches','blocks','device_bytes']}, r.get('device_bytes'))"
  done
done
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r

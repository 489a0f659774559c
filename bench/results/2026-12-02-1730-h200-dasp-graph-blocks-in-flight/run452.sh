#!/usr/bin/env bash
# Run 452 (issue 8, DASP): blocks_in_flight=4 as a variant on layouts with long rows whose warps
# take several medium row-blocks (the long-rows rule leaves them 2): case9 replicas, R-MAT graphs,
# random rows with a few long ones, and the default suite; fp64 and fp16, one pass.
set -u
OUT=${OUT:-/tmp/out}; R=$OUT/r; mkdir -p $R
log=$R/run452.log
say() { echo "$*" | tee -a $log; }
save() { tar czf $OUT/run452.tgz -C $R . ; }
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/*
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
SECONDS=0
S=.mx/suitesparse
M=(gen:replicate:file=$S/case9.mtx.gz,copies=20,seed=820 gen:replicate:file=$S/case9.mtx.gz,copies=60,seed=813
   gen:replicate:file=$S/case9.mtx.gz,copies=120,seed=821
   gen:rmat:scale=19,edge_factor=4,seed=822 gen:rmat:scale=18,edge_factor=4,seed=823 gen:rmat:scale=20,edge_factor=3,seed=824
   gen:random:rows=1000000,cols=1000000,dist=normal,min=4,max=400,seed=825
   gen:random:rows=300000,cols=300000,dist=uniform,min=1,max=600,seed=826
   gen:random:rows=1000000,cols=1000000,dist=power_law,min=5,max=5000,exponent=3.0,seed=827
   gen:random:rows=200000,cols=1000000,dist=uniform,min=20,max=400,seed=828)
timeout -k 5 200 $b/tcsparse bench "${M[@]}" --methods dasp,cusparse --precisions fp64,fp16 --runs 20 \
  --variant bif4:blocks_in_flight=4 --output $R/run452-multi.jsonl > $R/multi.txt 2>&1
say "multi rc $? [$SECONDS s]"; tail -n 1 $R/multi.txt | tee -a $log
save
timeout -k 5 150 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16 --runs 20 \
  --variant bif4:blocks_in_flight=4 --output $R/run452-default.jsonl > $R/default.txt 2>&1
say "default rc $? [$SECONDS s]"; tail -n 1 $R/default.txt | tee -a $log
# (then a summary printing, per matrix, whether it has long rows, their share of the values, the
#  medium row-blocks a warp, the blocks in flight auto gave, the stored MiB, and both speedups)
save
say "done [$SECONDS s]"

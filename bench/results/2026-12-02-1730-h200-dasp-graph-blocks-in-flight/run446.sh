#!/usr/bin/env bash
# Run 446 (issue 8, DASP): medium_rows_per_warp = 32 (two medium row-blocks a
# warp) as variants in fp16 and bf16 on heavy-tailed matrices with and without empty rows
# (rajat01 replicas, power-law rows, circuit- and mip1-like, R-MAT / Kronecker graphs), two passes.
set -u
OUT=${OUT:-/tmp/out}; R=$OUT/r; mkdir -p $R
log=$R/run446.log
say() { echo "$*" | tee -a $log; }
save() { tar czf $OUT/run446.tgz -C $R . ; }
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
SECONDS=0
S=.mx/suitesparse
M=(gen:replicate:file=$S/rajat01.mtx.gz,copies=100,seed=301 gen:replicate:file=$S/rajat01.mtx.gz,copies=150,seed=720
   gen:replicate:file=$S/rajat01.mtx.gz,copies=200,seed=211 gen:replicate:file=$S/rajat01.mtx.gz,copies=300,seed=730
   gen:replicate:file=$S/rajat01.mtx.gz,copies=463,seed=10
   gen:random:rows=3000000,cols=3000000,dist=power_law,min=1,max=50000,exponent=2.1,seed=204
   gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=100000,exponent=2.3,seed=201
   gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=100000,exponent=2.3,seed=719
   gen:random:rows=1500000,cols=1500000,dist=power_law,min=1,max=50000,exponent=2.1,seed=717
   gen:random:rows=1000000,cols=1000000,dist=power_law,min=1,max=300000,exponent=2.3,seed=718
   gen:random:rows=1000000,cols=1000000,dist=power_law,min=3,max=2000,exponent=2.5,seed=317
   gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61
   gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=1000000,exponent=2.3,seed=62
   gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67
   gen:rmat:scale=20,edge_factor=6,seed=215 gen:rmat:scale=21,edge_factor=4,seed=205
   gen:rmat:scale=22,edge_factor=2,seed=207 gen:rmat:scale=18,edge_factor=48,seed=63)
for pass in 1 2; do
  timeout -k 5 250 $b/tcsparse bench "${M[@]}" --methods dasp,cusparse --precisions fp16,bf16 --runs 20 \
    --variant rpw32:medium_rows_per_warp=32 \
    --output $R/run446-rpw-$pass.jsonl > $R/rpw-$pass.txt 2>&1
  say "rpw pass $pass rc $? [$SECONDS s]"; tail -n 1 $R/rpw-$pass.txt | tee -a $log
  save
done
# (then the same summary script as run447.sh, printing each matrix's speedups and layout counts)
save
say "done [$SECONDS s]"

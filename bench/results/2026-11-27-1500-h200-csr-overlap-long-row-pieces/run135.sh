#!/usr/bin/env bash
# Run 135 (profile only, HEAD 377ee4f binary): where csr_overlap loses to cuSPARSE on the large
# scattered matrices (L1 hit rate, occupancy, shared memory, instructions), and which kernels a
# from-device csr_overlap plan build of stencil2d_2000 fp32 runs and how long each takes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run135.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
M="gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,launch__registers_per_thread,launch__block_size,launch__grid_size,smsp__inst_executed.sum,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__maximum_warps_per_active_cycle_pct"
declare -A SPEC=(
 [rmat_20]="gen:rmat:scale=20,edge_factor=16,seed=3"
 [random_powerlaw_2m]="gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=20000,exponent=2,seed=5"
 [random_uniform_1m]="gen:random:rows=1000000,cols=1000000,dist=uniform,min=1,max=39,seed=4"
 [stencil3d_100]="gen:stencil3d:nx=100,ny=100,nz=100,seed=2"
)
for m in rmat_20 random_powerlaw_2m random_uniform_1m stencil3d_100; do
  for p in fp64 fp32; do
    for meth in csr_overlap cusparse; do
      if [ $meth = csr_overlap ]; then K='regex:warp_direct|long_row|combine_long'; else K='regex:csrmv|spmv|SpMV|Spmv|cusparse'; fi
      timeout 120 ncu --clock-control none --metrics $M -k "$K" -c 4 \
        $b/tcsparse bench "${SPEC[$m]}" --methods $meth --precisions $p --runs 1 --warmup-ms 0 --plan-builds 1 \
        --output $R/x.jsonl > $R/ncu-$m-$p-$meth.txt 2>&1
      echo "$m $p $meth rc $? [$SECONDS s]"
    done
  done
done
# the from-device build of stencil2d_2000 fp32: every kernel of builds 1-3
timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size -c 60 \
  $b/tcsparse bench gen:stencil2d:nx=2000,ny=2000,seed=1 --methods csr_overlap --precisions fp32 --from-device \
  --runs 1 --warmup-ms 0 --plan-builds 3 --output $R/y.jsonl > $R/ncu-build-stencil2d-fp32.txt 2>&1
echo "build rc $? [$SECONDS s]"
timeout 60 $b/tcsparse bench gen:stencil2d:nx=2000,ny=2000,seed=1 --methods csr_overlap --precisions fp32,fp64 --from-device \
  --runs 10 --plan-builds 5 --output $R/build-stencil2d.jsonl > /dev/null 2>&1
echo "build bench rc $?"
python3 -c "
import json
for l in open('$R/build-stencil2d.jsonl'):
  r=json.loads(l); print(r['precision'], 'build', r['plan_build_ms'], 'spmv', r['median_ms'], 'x', r['plan_build_ms']/r['median_ms'], 'dev', r['device_preprocess_ms'], r['details'].get('plan_builds_ms'))"
rm -f $R/x.jsonl $R/y.jsonl
gzip -f $R/*.jsonl 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r

#!/usr/bin/env bash
# Run 425 (issue 8): Nsight Compute, one launch each, on rajat01 replicated 463 times (20 M
# nonzeros), where DASP runs 0.71x cuSPARSE in fp64 and 1.03x in fp16 (runs 421-422): DASP fp64,
# DASP fp64 with medium_rows_per_warp=16, DASP fp16, cuSPARSE fp64. The binary of run 424.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run425.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/tcsparse
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
M="gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=463,seed=10"
profile() {  # tag, method, precision, kernel regex, params...
  local tag=$1 method=$2 precision=$3 regex=$4; shift 4
  SECONDS=0
  timeout 120 ncu --kernel-name regex:"$regex" --launch-skip 6 --launch-count 1 \
    --set full --import-source no -o $R/prof-$tag $b/tcsparse bench $M --methods $method \
    --precisions $precision --runs 3 --plan-builds 1 "$@" --output $R/x.jsonl > $R/ncu-$tag.log 2>&1
  echo "ncu $tag rc $? [$SECONDS s]"; tail -2 $R/ncu-$tag.log
  ncu --import $R/prof-$tag.ncu-rep --page details --csv > $R/run425-details-$tag.csv 2>&1
  rm -f $R/prof-$tag.ncu-rep $R/x.jsonl
}
profile dasp64 dasp fp64 'dasp_spmv_kernel'
profile dasp64mr16 dasp fp64 'dasp_spmv_kernel' --param medium_rows_per_warp=16
profile dasp16 dasp fp16 'dasp_spmv_kernel'
profile cusparse64 cusparse fp64 'csrmv|Csr|csr'
grep -E '"(Duration|Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Executed Ipc Active|Issue Slots Busy|Memory Throughput|DRAM Throughput|L1/TEX Hit Rate|L2 Hit Rate|Warp Cycles Per Issued Instruction|Executed Instructions|Grid Size|Block Size|Waves Per SM)"' $R/run425-details-*.csv | cut -c1-220
cd $R && gzip -f *.csv && cd $OUT && tar cf run425.tar r && rm -rf r

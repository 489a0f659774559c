#!/usr/bin/env bash
# Run 426 (issue 8): the matrices DASP still loses on (run 421 / 424), named parameters as
# variants, and Nsight Compute's memory counters on the rajat01 replica (20 M nonzeros, fp64
# 0.71x cuSPARSE): where DASP's extra DRAM bytes go. The binary of 33d7e45.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run426.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/tcsparse
RAJAT="gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=463,seed=10"
RMAT19="gen:rmat:scale=19,edge_factor=6,seed=54"
CIRCUIT="gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=1000000,exponent=2.3,seed=62"
PRUNED="gen:pruned:rows=4096,cols=4096,sparsity=0.9,seed=53"
PL16="gen:random:rows=30000,cols=30000,dist=power_law,min=1,max=10000,exponent=1.6,seed=44"
bench() {  # tag, then tcsparse bench arguments
  local tag=$1; shift; SECONDS=0
  timeout 150 $b/tcsparse bench "$@" --runs 30 --plan-builds 1 --output $R/run426-$tag.jsonl > $R/bench-$tag.txt 2>&1
  echo "bench $tag rc $? [$SECONDS s]"; tail -1 $R/bench-$tag.txt
}
bench rajat $RAJAT --methods dasp,cusparse --precisions fp64 \
  --variant w16k:medium_row_window=16384 --variant w64k:medium_row_window=65536 \
  --variant w256k:medium_row_window=262144 --variant w1m:medium_row_window=1048576 \
  --variant plan:row_order=plan --variant w64kplan:medium_row_window=65536,row_order=plan \
  --variant mr16:medium_rows_per_warp=16 --variant mr16w64k:medium_rows_per_warp=16,medium_row_window=65536 \
  --variant mr32w64k:medium_rows_per_warp=32,medium_row_window=65536 \
  --variant lg4:long_groups_per_warp=4 --variant lg8:long_groups_per_warp=8
bench rmat19 $RMAT19 --methods dasp,cusparse --precisions fp64 \
  --variant m32:max_medium_row_length=32 --variant m128:max_medium_row_length=128 --variant m256:max_medium_row_length=256 \
  --variant lg4:long_groups_per_warp=4 --variant lg8:long_groups_per_warp=8 --variant lg16:long_groups_per_warp=16 \
  --variant m256lg8:max_medium_row_length=256,long_groups_per_warp=8 --variant m256lg16:max_medium_row_length=256,long_groups_per_warp=16 \
  --variant mr16:medium_rows_per_warp=16 --variant bif1:blocks_in_flight=1 --variant bif4:blocks_in_flight=4 \
  --variant plan:row_order=plan --variant w4k:medium_row_window=4096 --variant fill1:regular_block_min_fill=1 \
  --variant mbw8:medium_blocks_per_warp=8 --variant mbw16:medium_blocks_per_warp=16
bench circuit $CIRCUIT --methods dasp,cusparse --precisions fp64 \
  --variant w64k:medium_row_window=65536 --variant plan:row_order=plan --variant bif4:blocks_in_flight=4 \
  --variant mr16:medium_rows_per_warp=16 --variant lg8:long_groups_per_warp=8 --variant m64:max_medium_row_length=64 \
  --variant mbw16:medium_blocks_per_warp=16
bench small16 $PRUNED $PL16 --methods dasp,cusparse --precisions fp16,bf16 \
  --variant lg4:long_groups_per_warp=4 --variant lg8:long_groups_per_warp=8 --variant lg16:long_groups_per_warp=16 \
  --variant m64:max_medium_row_length=64 --variant m128:max_medium_row_length=128 --variant mr16:medium_rows_per_warp=16 \
  --variant bif1:blocks_in_flight=1 --variant bif4:blocks_in_flight=4 --variant pl0:pipelined_loads=0 --variant pl1:pipelined_loads=1 \
  --variant all:kernel_parts=all --variant mbw8:medium_blocks_per_warp=8
python3 - $R <<'PY'
import json, sys, glob, collections
for f in sorted(glob.glob(f"{sys.argv[1]}/run426-*.jsonl")):
    t = collections.defaultdict(dict)
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        lab = r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else "")
        t[(r["precision"], r["matrix"][:40], r["nnz"])][lab] = r["median_ms"] * 1e3
    for k, v in sorted(t.items()):
        c = v["cusparse"]
        print(k, "cusparse %.1f us" % c, " ".join(f"{m} {c / x:.3f}" for m, x in sorted(v.items()) if m != "cusparse"))
PY
M="dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,gpu__time_duration.sum,smsp__inst_executed.sum"
profile() {  # tag, method, kernel regex, params...
  local tag=$1 method=$2 regex=$3; shift 3; SECONDS=0
  timeout 100 ncu --kernel-name regex:"$regex" --launch-skip 6 --launch-count 1 --metrics $M --csv \
    $b/tcsparse bench $RAJAT --methods $method --precisions fp64 --runs 3 --plan-builds 1 "$@" \
    --output $R/x.jsonl > $R/ncu-$tag.csv 2> $R/ncu-$tag.err
  echo "ncu $tag rc $? [$SECONDS s]"; rm -f $R/x.jsonl
  grep -E '"(dram__|lts__|l1tex__|gpu__|smsp__)' $R/ncu-$tag.csv | awk -F'","' '{print "  " $(NF-2), $(NF-1), $NF}'
}
profile dasp dasp 'dasp_spmv_kernel'
profile dasp-w64k dasp 'dasp_spmv_kernel' --param medium_row_window=65536
profile dasp-plan dasp 'dasp_spmv_kernel' --param row_order=plan
profile cusparse cusparse 'csrmv|Csr|csr'
cd $R && gzip -f *.jsonl && cd $OUT && tar cf run426.tar r && rm -rf r

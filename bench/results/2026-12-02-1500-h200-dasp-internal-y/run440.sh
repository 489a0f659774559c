#!/usr/bin/env bash
# Run 440 (issue 8, DASP fp64 losses): where DASP's kernel loses to cuSPARSE's on R-MAT 22 with
# 2 edges a vertex (0.84x) and the rajat01 replica x463 (0.86x): Nsight Compute (full set, source
# counters, memory counters) of one launch each; then the caller order against the plan's row
# order (row_order=plan: no scatter of y, x renumbered) timed, two passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run440.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
S=.mx/suitesparse
RM22="gen:rmat:scale=22,edge_factor=2,seed=207"
RAJ="gen:replicate:file=$S/rajat01.mtx.gz,copies=463,seed=10"
MET=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed.sum
profile() {  # tag, matrix, method, kernel regex, params...
  local tag=$1 m=$2 method=$3 regex=$4; shift 4
  SECONDS=0
  timeout 200 ncu --kernel-name regex:"$regex" --launch-skip 6 --launch-count 1 \
    --set full --metrics $MET --import-source no -o $R/prof-$tag $b/tcsparse bench $m --methods $method \
    --precisions fp64 --runs 3 --plan-builds 1 "$@" --output $R/x.jsonl > $R/ncu-$tag.log 2>&1
  echo "ncu $tag rc $? [$SECONDS s]"; tail -2 $R/ncu-$tag.log
  ncu --import $R/prof-$tag.ncu-rep --page details --csv > $R/details-$tag.csv 2>&1
  ncu --import $R/prof-$tag.ncu-rep --page raw --csv --metrics $MET,gpu__time_duration.sum > $R/raw-$tag.csv 2>&1
  ncu --import $R/prof-$tag.ncu-rep --page source --csv --print-source sass > $R/source-$tag.csv 2>&1
  rm -f $R/prof-$tag.ncu-rep $R/x.jsonl
}
profile rmat-dasp "$RM22" dasp 'dasp_spmv_kernel'
profile rmat-cusparse "$RM22" cusparse 'csrmv|Csr|csr'
profile rmat-plan "$RM22" dasp 'dasp_spmv_kernel' --param row_order=plan
profile raj-dasp "$RAJ" dasp 'dasp_spmv_kernel'
profile raj-cusparse "$RAJ" cusparse 'csrmv|Csr|csr'
for t in rmat-dasp rmat-cusparse rmat-plan raj-dasp raj-cusparse; do echo "== $t"; grep -v '^==' $R/raw-$t.csv | python3 -c "
import csv,sys
rows=list(csv.reader(sys.stdin)); h=rows[0]
for r in rows[2:]:
    print(' '.join(f'{h[i]}={r[i]}' for i in range(len(h)) if '__' in h[i]))
"; done
SECONDS=0
for pass in 1 2; do
  timeout 150 $b/tcsparse bench "$RM22" gen:rmat:scale=23,edge_factor=2,seed=208 "$RAJ" --methods dasp,cusparse \
    --precisions fp64 --runs 30 --variant plan:row_order=plan --output $R/run440-$pass.jsonl > /dev/null 2>&1
  echo "pass $pass rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, statistics, collections
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(sys.argv[1] + "/run440-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        t[r["matrix"][-45:]][r.get("variant") or r["method"]].append(r["median_ms"] * 1e3)
for m, by in t.items():
    c = statistics.median(by["cusparse"])
    print(m, " ".join(f"{k} {statistics.median(v):.1f} us ({c / statistics.median(v):.3f}x)" for k, v in by.items()))
PY
cd $R && gzip -f *.csv *.jsonl; cd - > /dev/null

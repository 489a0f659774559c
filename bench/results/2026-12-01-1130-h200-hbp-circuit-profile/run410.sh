#!/usr/bin/env bash
# Run 410: where hbp's groups kernel spends its instructions on circuit-like 680 k (fp64, x in
# one column block; hbp 55 us against cuSPARSE's 32): Nsight Compute (full set, source counters)
# of one launch under auto (blocks of 32 rows, hash), blocks of 4096 rows (hash, sort) and
# reorder=none; cuSPARSE's and DASP's kernels on the same matrix for their instruction counts;
# then the same configurations timed, two passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run410.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
M="gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61"
profile() {  # tag, method, kernel regex, params...
  local tag=$1 method=$2 regex=$3; shift 3
  SECONDS=0
  timeout 150 ncu --kernel-name regex:"$regex" --launch-skip 6 --launch-count 1 \
    --set full --import-source no -o $R/prof-$tag $b/tcsparse bench $M --methods $method \
    --precisions fp64 --runs 3 --plan-builds 1 "$@" --output $R/x.jsonl > $R/ncu-$tag.log 2>&1
  echo "ncu $tag rc $? [$SECONDS s]"; tail -2 $R/ncu-$tag.log
  ncu --import $R/prof-$tag.ncu-rep --page details --csv > $R/details-$tag.csv 2>&1
  ncu --import $R/prof-$tag.ncu-rep --page source --csv --print-source sass > $R/source-$tag.csv 2>&1
  rm -f $R/prof-$tag.ncu-rep $R/x.jsonl
}
profile auto hbp 'spmv_groups_kernel'
profile rows4096 hbp 'spmv_groups_kernel|spmv_kernel' --param block_rows=4096
profile rows4096sort hbp 'spmv_groups_kernel|spmv_kernel' --param block_rows=4096,reorder=sort
profile none hbp 'spmv_groups_kernel' --param reorder=none
profile cusparse cusparse 'csrmv|Csr|csr'
profile dasp dasp 'dasp_spmv_kernel'
grep -E '"(Duration|Registers Per Thread|Achieved Occupancy|Executed Ipc Active|Issue Slots Busy|Memory Throughput|DRAM Throughput|L1/TEX Hit Rate|L2 Hit Rate|Warp Cycles Per Issued Instruction|Executed Instructions|No Eligible|Grid Size|Block Size)"' $R/details-*.csv | cut -c1-260
SECONDS=0
for pass in 1 2; do
  timeout 100 $b/tcsparse bench $M --methods hbp,cusparse,dasp --precisions fp64,fp16 --runs 50 --plan-builds 1 \
    --variant r4096:block_rows=4096 --variant r4096sort:block_rows=4096,reorder=sort --variant none:reorder=none \
    --output $R/run410-$pass.jsonl > /dev/null 2>&1
  echo "pass $pass rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, statistics, collections
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(sys.argv[1] + "/run410-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        d = r.get("details", {})
        t[r["precision"]][r.get("variant") or r["method"]].append((r["median_ms"] * 1e3, d.get("spmv_ms", 0) * 1e3, d.get("combine_ms", 0) * 1e3))
for p, by in sorted(t.items()):
    for lab, xs in by.items():
        print(p, lab, "total %.1f spmv %.1f combine %.1f us" % tuple(statistics.median(x[i] for x in xs) for i in range(3)))
PY
cd $R && gzip -f *.csv *.jsonl && tar cf $OUT/run410-results.tar . && cd - > /dev/null

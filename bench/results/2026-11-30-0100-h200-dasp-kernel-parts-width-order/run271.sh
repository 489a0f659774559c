#!/usr/bin/env bash
# Run 271: where caller-order y costs on uniform 4-12 at 4 M and 4 M short rows (fp64): windows of
# a warp's rows with every medium value regular (w16f0, w32f0), the paper's fill, the plan's row
# order; then Nsight Compute counters (DRAM and L2 sectors read / written, hit rate, instructions)
# of one apply each.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run271.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/tcsparse
SECONDS=0
U="gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=11"
S="gen:short:rows=4000000,cols=4000000,seed=7"
V="--variant w16f0:medium_row_window=16,regular_block_min_fill=0 --variant w32f0:medium_row_window=32,regular_block_min_fill=0 --variant f75:regular_block_min_fill=0.75 --variant plan:row_order=plan --variant planf75:row_order=plan,regular_block_min_fill=0.75"
for i in 1 2; do
  timeout 100 $b/tcsparse bench $U $S --methods dasp --precisions fp64 --plan-builds 1 --runs 50 $V \
    --output $R/run271-$i.jsonl > /dev/null 2>&1; echo "pass $i rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: print("error", r.get("matrix"), r.get("variant"), r.get("error")); continue
        d = r.get("details", {})
        t[(r["matrix"][:40], r["precision"])][r.get("variant") or "default"].append((r["median_ms"], d.get("kernel_parts"), r.get("stored_values")))
for k, d in sorted(t.items()):
    base = statistics.median(x[0] for x in d["default"])
    print(f"{k[0]:40s} {k[1]} default {base*1e3:7.1f} us parts {d['default'][0][1]} stored {d['default'][0][2]}")
    for v, xs in sorted(d.items()):
        if v == "default": continue
        med = statistics.median(x[0] for x in xs)
        print(f"    {v:8s} {med*1e3:7.1f} us  default is {med/base:.3f}x as fast  parts {xs[0][1]} stored {xs[0][2]}")
PY
MET=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
prof() {
  local name=$1 spec=$2; shift 2
  timeout 120 ncu --metrics $MET --clock-control none -k regex:dasp_spmv --launch-skip 12 --launch-count 1 --csv \
    $b/tcsparse bench $spec --methods dasp --precisions fp64 --plan-builds 1 --runs 3 "$@" > $R/ncu-$name.csv 2> $R/ncu-$name.err
  echo "== $name rc $?"
  python3 - $R/ncu-$name.csv <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: print("no rows"); sys.exit()
h = rows[0]
for r in rows[1:]:
    d = dict(zip(h, r))
    print(f"  {d['Metric Name']:60s} {d['Metric Unit']:8s} {d['Metric Value']}")
PY
}
prof uniform-default $U
prof uniform-w16f0 $U --param medium_row_window=16 --param regular_block_min_fill=0
prof uniform-plan $U --param row_order=plan
prof short-default $S
prof short-plan $S --param row_order=plan
echo "[$SECONDS s]"
cd $R && gzip *.jsonl && tar czf $OUT/run271.tgz . && cp run271.log $OUT/

#!/usr/bin/env bash
# Run 405: what holds hbp on rajat01 (43 k nonzeros; hbp 12.7 us, cuSPARSE 6.9 in run 404):
# the persistent grid of 264 x 512 threads taking 234 groups by ticket (blocks_per_sm=1,
# warps_per_block=4 / 8), the longest slot's chain (max_slot_length 256 / 4096), as variants of
# the new binary on rajat01, its replica, mip1-like and circuit-like 680 k; then Nsight Compute
# of hbp's two kernels on rajat01 (fp64).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run405.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
M=".mx/suitesparse/rajat01.mtx.gz gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=10
gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67
gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61"
for pass in 1 2; do
  timeout 100 $b/tcsparse bench $M --methods hbp,cusparse --precisions fp64,fp16 --runs 100 --plan-builds 1 \
    --variant bps1:blocks_per_sm=1 --variant w8:warps_per_block=8 --variant w4:warps_per_block=4 \
    --variant w4bps1:warps_per_block=4,blocks_per_sm=1 --variant s256:max_slot_length=256 \
    --variant s4096:max_slot_length=4096 --variant u8:walk_unroll=8 \
    --output $R/run405-$pass.jsonl > /dev/null 2>&1
  echo "pass $pass rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, statistics, collections, math
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/run405-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        lab = r.get("variant") or r["method"]
        d = r.get("details", {})
        t[(r["matrix"][:34], r["precision"])][lab].append((r["median_ms"] * 1e3, d.get("spmv_ms", 0) * 1e3, d.get("combine_ms", 0) * 1e3, d.get("grid", 0)))
labs = ["cusparse", "hbp", "bps1", "w8", "w4", "w4bps1", "s256", "s4096", "u8"]
print("us, median of passes: " + " ".join(labs))
for k, by in sorted(t.items()):
    out = f"{k[0]:34s} {k[1]}"
    for lab in labs:
        xs = by.get(lab)
        out += f" | {statistics.median(x[0] for x in xs):6.1f}" if xs else " |   -   "
    print(out)
PY
M1=.mx/suitesparse/rajat01.mtx.gz
timeout 120 ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
  --section LaunchStats --launch-skip 6 --launch-count 4 -k regex:'spmv|combine' \
  $b/tcsparse bench $M1 --methods hbp --precisions fp64 --runs 3 --output $R/x.jsonl > $R/run405-ncu-rajat01.txt 2>&1
echo "ncu rc $? [$SECONDS s]"
grep -E "^  [a-z_:<>]+.*\(|Duration|Registers Per|Warp Cycles Per Issued|Issued Warp|Achieved Active Warps|Stall|Grid Size|Block Size|One or More" $R/run405-ncu-rajat01.txt | head -40
rm -f $R/x.jsonl; cd $R && gzip *.jsonl && echo "[$SECONDS s]"

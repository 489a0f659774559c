#!/usr/bin/env bash
# Run 264: DASP fp64 medium-row loop shapes on the side-by-side matrices (issue 8's parity with
# the authors' code): rows a warp (8 / 16 / 32) x blocks in flight (1 / 2 / 4) as variants of
# the default build, three passes; and the instruction mix of the default and the 32-row shape
# on cage11 x 35 (ncu, instructions executed, registers, occupancy).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run264.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
M="gen:replicate:file=.mx/suitesparse/cage11.mtx.gz,copies=35,seed=10 gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=11 gen:stencil2d:nx=2000,ny=2000,seed=1 gen:short:rows=4000000,cols=4000000,seed=7"
V="--variant m8:medium_rows_per_warp=8 --variant m32:medium_rows_per_warp=32 --variant b1:blocks_in_flight=1 --variant b4:blocks_in_flight=4 --variant m8b4:medium_rows_per_warp=8,blocks_in_flight=4 --variant m32b1:medium_rows_per_warp=32,blocks_in_flight=1 --variant m32b4:medium_rows_per_warp=32,blocks_in_flight=4 --variant m16b2:medium_rows_per_warp=16,blocks_in_flight=2"
for i in 1 2 3; do
  timeout 150 $b/tcsparse bench $M --methods dasp --precisions fp64 --plan-builds 1 --runs 50 $V \
    --output $R/shapes-$i.jsonl > /dev/null 2>&1; echo "pass $i rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/shapes-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: print("error", r.get("matrix"), r.get("variant"), r.get("error")); continue
        d = r.get("details", {})
        t[r["matrix"][:30]][r.get("variant") or "default"].append((r["median_ms"], d.get("medium_rows_per_warp"), d.get("blocks_in_flight")))
for m, d in t.items():
    base = statistics.median(x[0] for x in d["default"])
    print(m, "default", f"{base*1e3:.1f} us", d["default"][0][1:], )
    for v, xs in sorted(d.items()):
        med = statistics.median(x[0] for x in xs)
        print(f"   {v:8s} {med*1e3:7.1f} us  {base/med:.3f}x  {xs[0][1:]}")
PY
if command -v ncu >/dev/null; then
  for v in "" "medium_rows_per_warp=32"; do
    p=""; [ -n "$v" ] && p="--param $v"
    timeout 120 ncu --metrics smsp__inst_executed.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,dram__bytes_read.sum \
      -k regex:dasp_spmv --launch-skip 20 --launch-count 1 $b/tcsparse bench gen:replicate:file=.mx/suitesparse/cage11.mtx.gz,copies=35,seed=10 \
      --methods dasp --precisions fp64 --plan-builds 1 --runs 5 $p --output /tmp/ncu.jsonl 2>&1 | grep -E "dasp_spmv|inst_executed|registers|warps_active|time_duration|dram__bytes" | tee -a $R/ncu.txt
  done
fi
cd $R && gzip *.jsonl && tar czf $OUT/run264.tgz . && cp run264.log $OUT/
echo "[$SECONDS s]"

#!/usr/bin/env bash
# Run 270: medium-row windows as small as a warp's rows (medium_row_window=16/32/64/256 against
# the automatic 4096), so that each warp writes y over whole sectors of its own: the side-by-side
# matrices (two passes) and the default suite, fp64 and fp16; short_4m with its tiles by kind.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run270.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
M="gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=11 gen:replicate:file=.mx/suitesparse/cage11.mtx.gz,copies=35,seed=10 gen:stencil2d:nx=2000,ny=2000,seed=1 gen:rmat:scale=20,edge_factor=16,seed=3"
V="--variant w16:medium_row_window=16 --variant w32:medium_row_window=32 --variant w64:medium_row_window=64 --variant w256:medium_row_window=256"
for i in 1 2; do
  timeout 150 $b/tcsparse bench $M --methods dasp --precisions fp64,fp16 --plan-builds 1 --runs 50 $V \
    --output $R/run270-side-$i.jsonl > /dev/null 2>&1; echo "side $i rc $? [$SECONDS s]"
done
timeout 60 $b/tcsparse bench gen:short:rows=4000000,cols=4000000,seed=7 --methods dasp --precisions fp64,fp16 --plan-builds 1 --runs 50 \
  --variant kind:short_tile_order=kind --output $R/run270-short.jsonl > /dev/null 2>&1; echo "short rc $? [$SECONDS s]"
timeout 200 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 1 --runs 30 \
  $V --output $R/run270-default.jsonl > /dev/null 2>&1; echo "default rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: print("error", r.get("matrix"), r.get("variant"), r.get("error")); continue
        d = r.get("details", {})
        v = r.get("variant") or "default"
        t[(r["matrix"][:40], r["precision"], r["method"])][v].append((r["median_ms"], d.get("kernel_parts"), r.get("padding_ratio"), d.get("regular_block_min_fill")))
for k, d in sorted(t.items()):
    if k[2] != "dasp": continue
    base = statistics.median(x[0] for x in d["default"])
    line = f"{k[0]:40s} {k[1]} default {base*1e3:7.1f} us parts {d['default'][0][1]} pad {d['default'][0][2]:.3f}"
    cus = t.get((k[0], k[1], "cusparse"), {}).get("default")
    if cus: line += f" (over cusparse {statistics.median(x[0] for x in cus)/base:.3f}x)"
    print(line)
    for v, xs in sorted(d.items()):
        if v == "default": continue
        med = statistics.median(x[0] for x in xs)
        print(f"    {v:6s} {med*1e3:7.1f} us  default is {med/base:.3f}x as fast  parts {xs[0][1]} pad {xs[0][2]:.3f}")
PY
cd $R && gzip *.jsonl && tar czf $OUT/run270.tgz . && cp run270.log $OUT/
echo "[$SECONDS s]"

#!/usr/bin/env bash
# Run 276: where DASP stands after runs 269-275 (kernel parts, windows ordered by width, staged
# short y): the repository's real matrices (.mx/real) and the default suite, fp64 / fp16 / bf16,
# DASP against cuSPARSE; the side-by-side generated matrices of issue 8.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run276.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/tcsparse
SECONDS=0
timeout 200 $b/tcsparse bench .mx/real --methods dasp,cusparse --precisions fp64,fp16,bf16 --plan-builds 1 --runs 10 \
  --warmup-ms 2 --output $R/run276-real.jsonl > /dev/null 2>&1; echo "real rc $? [$SECONDS s]"
timeout 150 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16,bf16 --plan-builds 3 --runs 30 \
  --output $R/run276-default.jsonl > /dev/null 2>&1; echo "default rc $? [$SECONDS s]"
M="gen:short:rows=4000000,cols=4000000,seed=7 gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=11 gen:replicate:file=.mx/suitesparse/cage11.mtx.gz,copies=35,seed=10 gen:stencil2d:nx=2000,ny=2000,seed=1 gen:rmat:scale=20,edge_factor=16,seed=3 gen:long:rows=20000,cols=1000000,length=1000,seed=8"
timeout 150 $b/tcsparse bench $M --methods dasp,cusparse --precisions fp64,fp16,bf16 --plan-builds 3 --runs 50 \
  --output $R/run276-side.jsonl > /dev/null 2>&1; echo "side rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, collections, math, glob
R = sys.argv[1]
for name in ["real", "default", "side"]:
    t = collections.defaultdict(dict)
    for l in open(f"{R}/run276-{name}.jsonl"):
        r = json.loads(l)
        if "median_ms" not in r: continue
        t[(r["matrix"], r["precision"])][r["method"]] = r
    for p in ["fp64", "fp16", "bf16"]:
        over = [(d["cusparse"]["median_ms"] / d["dasp"]["median_ms"], m[0]) for m, d in t.items()
                if m[1] == p and "dasp" in d and "cusparse" in d]
        if not over: continue
        g = math.exp(sum(math.log(x) for x, _ in over) / len(over))
        below = sorted(x for x in over if x[0] < 0.95)
        builds = [(d["dasp"]["plan_build_ms"] / d["dasp"]["median_ms"], m[0][:40]) for m, d in t.items()
                  if m[1] == p and "dasp" in d and d["dasp"]["nnz"] >= 1_000_000]
        print(f"{name:8s} {p} matrices {len(over)} geomean over cusparse {g:.3f} min {min(over)[0]:.3f} ({min(over)[1][:40]}) below 0.95: {len(below)}")
        if builds: print(f"         plan build in SpMV-times (>= 1 M nnz): max {max(builds)[0]:.0f} ({max(builds)[1]}), over 100: {sorted(b for b in builds if b[0] > 100)}")
PY
cd $R && gzip *.jsonl && tar czf $OUT/run276.tgz . && cp run276.log $OUT/
echo "[$SECONDS s]"

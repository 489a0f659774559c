#!/usr/bin/env bash
# Run 420 (issue 8, DASP, the binary of run 419): parameters as variants, no GPU tests.
# (1) long_groups_per_warp 4 / 8 / 16 on the small matrices of runs 418-419 (R-MAT scale 13 with 96
# edges a vertex ran 0.65x cuSPARSE in fp16 at every MAX_LEN: its longest row, 3672 values, is
# one warp's 29 long-row groups); (2) MAX_LEN 64 / 128 in fp64 on the default suite, the large
# suite up to 70 M nonzeros and the hbp suite's graphs (the matrices of 1.1-4 M nonzeros of run
# 419 ran 1.07x faster in fp64 at 64 than at 256); (3) the real matrices with long_groups_per_warp=4.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run420.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
small=(
  gen:rmat:scale=15,edge_factor=16,seed=13 gen:rmat:scale=15,edge_factor=32,seed=3 gen:rmat:scale=16,edge_factor=8,seed=3
  gen:rmat:scale=16,edge_factor=16,seed=3 gen:rmat:scale=14,edge_factor=48,seed=3
  gen:random:rows=100000,cols=100000,dist=power_law,min=1,max=5000,exponent=2,seed=14
  gen:random:rows=120000,cols=120000,dist=power_law,min=1,max=100000,exponent=2.3,seed=61
  gen:random:rows=60000,cols=60000,dist=uniform,min=1,max=30,seed=4 gen:random:rows=30000,cols=30000,dist=uniform,min=20,max=40,seed=4
  gen:random:rows=20000,cols=20000,dist=uniform,min=30,max=70,seed=4 gen:stencil3d:nx=30,ny=30,nz=30,seed=12
  gen:pruned:rows=2048,cols=2048,sparsity=0.9,seed=16 gen:pruned:rows=4096,cols=1024,sparsity=0.8,seed=17 .mx/suitesparse/cage11.mtx.gz
  gen:rmat:scale=16,edge_factor=12,seed=7 gen:rmat:scale=15,edge_factor=24,seed=8 gen:rmat:scale=14,edge_factor=32,seed=9
  gen:rmat:scale=13,edge_factor=96,seed=9 gen:rmat:scale=17,edge_factor=6,seed=5
  gen:random:rows=200000,cols=200000,dist=power_law,min=1,max=50000,exponent=2.5,seed=21
  gen:random:rows=10000,cols=10000,dist=uniform,min=65,max=130,seed=23 gen:random:rows=5000,cols=20000,dist=uniform,min=100,max=250,seed=24
  gen:pruned:rows=1024,cols=4096,sparsity=0.85,seed=27 gen:pruned:rows=2048,cols=2048,sparsity=0.8,seed=28
  gen:rmat:scale=12,edge_factor=128,seed=41 gen:rmat:scale=14,edge_factor=64,seed=42 gen:rmat:scale=16,edge_factor=4,seed=43
  gen:random:rows=30000,cols=30000,dist=power_law,min=1,max=10000,exponent=1.6,seed=44
)
timeout 150 $b/tcsparse bench "${small[@]}" --methods dasp,cusparse --precisions fp64,fp16 --runs 30 --plan-builds 1 \
  --variant lg4:long_groups_per_warp=4 --variant lg8:long_groups_per_warp=8 --variant lg16:long_groups_per_warp=16 \
  --output $R/run420-small-long-groups.jsonl > $R/bench-small.txt 2>&1
echo "small rc $? [$SECONDS s]"; tail -1 $R/bench-small.txt
timeout 120 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64 --runs 30 --plan-builds 1 \
  --variant m64:max_medium_row_length=64 --variant m128:max_medium_row_length=128 \
  --output $R/run420-default-fp64.jsonl > $R/bench-default.txt 2>&1
echo "default rc $? [$SECONDS s]"; tail -1 $R/bench-default.txt
timeout 150 $b/tcsparse bench --suite large --matrix-dir .mx --max-nnz 70000000 --methods dasp,cusparse --precisions fp64 --runs 20 --plan-builds 1 \
  --variant m64:max_medium_row_length=64 --variant m128:max_medium_row_length=128 \
  --output $R/run420-large-fp64.jsonl > $R/bench-large.txt 2>&1
echo "large rc $? [$SECONDS s]"; tail -1 $R/bench-large.txt
timeout 100 $b/tcsparse bench --suite hbp --matrix-dir .mx --max-nnz 50000000 --methods dasp,cusparse --precisions fp64 --runs 20 --plan-builds 1 \
  --variant m64:max_medium_row_length=64 --variant m128:max_medium_row_length=128 \
  --output $R/run420-hbp-fp64.jsonl > $R/bench-hbp.txt 2>&1
echo "hbp rc $? [$SECONDS s]"; tail -1 $R/bench-hbp.txt
timeout 100 $b/tcsparse bench .mx/real --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 1 --runs 10 \
  --warmup-ms 2 --variant lg4:long_groups_per_warp=4 --output $R/run420-real.jsonl > $R/bench-real.txt 2>&1
echo "real rc $? [$SECONDS s]"; tail -1 $R/bench-real.txt
python3 - $R <<'PY'
import json, sys, collections, math, glob
for f in sorted(glob.glob(f"{sys.argv[1]}/run420-*.jsonl")):
    name = f.split("run420-")[1][:-6]
    t = collections.defaultdict(dict); det = {}
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        lab = r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else "")
        k = (r["precision"], r["matrix"][-45:], r["nnz"])
        t[k][lab] = r["median_ms"] * 1e3
        if r["method"] == "dasp" and not r.get("variant"):
            d = r.get("details") or {}
            det[k] = (d.get("max_medium_row_length"), d.get("long_groups_per_warp"))
    geo = collections.defaultdict(list)
    for k, v in sorted(t.items()):
        c = v.get("cusparse")
        if not c or "dasp" not in v: continue
        if name != "real" or min(c / x for m, x in v.items()) < 1.2:
            print(name, k, "cusparse %.1f us" % c, "maxlen,lg", det.get(k), " ".join(f"{m} {c / x:.3f}" for m, x in sorted(v.items()) if m != "cusparse"))
        for m, x in v.items():
            if m != "cusparse": geo[(k[0], m)].append(c / x)
    for (p, m), xs in sorted(geo.items()):
        print(name, p, m, "geomean", round(math.exp(sum(map(math.log, xs)) / len(xs)), 3), "min", round(min(xs), 3), len(xs))
PY
cd $R && gzip -f *.jsonl && echo "[$SECONDS s]"
cd $OUT && tar cf run420.tar r && rm -rf r

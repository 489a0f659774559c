#!/usr/bin/env bash
# Run 437 (issue 8, DASP), binary of cb4c9fb: every medium value in a regular block
# (regular_block_min_fill=0) as a variant against auto, fp64, on the default suite and on
# replicas of real matrices and generated graphs of 1-33 M nonzeros. Auto takes 0 in fp64 from
# 1 M nonzeros where that stores <= 15 % of nnz more values (kDaspAllRegularMaxGrowth, run 266);
# run 436 measured 0 at 1.20-1.37x on the rajat01 replicas, which store 19 % more: where does 0
# stop paying? The growth is read off both records' stored_values.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run437.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b; xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/*
SECONDS=0
S=.mx/suitesparse
mats=(
  gen:replicate:file=$S/rajat01.mtx.gz,copies=100,seed=301 gen:replicate:file=$S/rajat01.mtx.gz,copies=200,seed=211
  gen:replicate:file=$S/rajat01.mtx.gz,copies=463,seed=10 gen:replicate:file=$S/cage11.mtx.gz,copies=35,seed=302
  gen:replicate:file=$S/delaunay_n16.mtx.gz,copies=20,seed=303 gen:replicate:file=$S/case9.mtx.gz,copies=60,seed=304
  gen:replicate:file=$S/ca-CondMat.mtx.gz,copies=60,seed=305 gen:replicate:file=$S/bratu3d.mtx.gz,copies=40,seed=306
  gen:replicate:file=$S/nh2010.mtx.gz,copies=40,seed=307 gen:replicate:file=$S/ncvxqp1.mtx.gz,copies=60,seed=308
  gen:replicate:file=$S/aug2d.mtx.gz,copies=80,seed=309 gen:replicate:file=$S/cti.mtx.gz,copies=60,seed=310
  gen:replicate:file=$S/de2010.mtx.gz,copies=60,seed=311 gen:replicate:file=$S/MISKnowledgeMap.mtx.gz,copies=100,seed=312
  gen:replicate:file=$S/vt2010.mtx.gz,copies=60,seed=313 gen:replicate:file=$S/pubmed.mtx.gz,copies=60,seed=314
  gen:rmat:scale=21,edge_factor=4,seed=205 gen:rmat:scale=22,edge_factor=2,seed=207 gen:rmat:scale=20,edge_factor=6,seed=215
  gen:random:rows=3000000,cols=3000000,dist=power_law,min=1,max=50000,exponent=2.1,seed=204
  gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=100000,exponent=2.3,seed=201
  gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=315
  gen:random:rows=2000000,cols=2000000,dist=uniform,min=1,max=20,seed=316
  gen:random:rows=1000000,cols=1000000,dist=power_law,min=3,max=2000,exponent=2.5,seed=317
)
timeout 250 $b/tcsparse bench "${mats[@]}" --methods dasp,cusparse --precisions fp64 --runs 30 \
  --variant fill0:regular_block_min_fill=0 --variant f0r16:regular_block_min_fill=0,medium_rows_per_warp=16 \
  --variant f0r32:regular_block_min_fill=0,medium_rows_per_warp=32 --variant r32:medium_rows_per_warp=32 \
  --output $R/run437-fill0.jsonl > $R/bench-fill0.txt 2>&1
echo "fill0 rc $? [$SECONDS s]"; tail -1 $R/bench-fill0.txt
timeout 150 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64 --runs 30 \
  --variant fill0:regular_block_min_fill=0 --output $R/run437-default-fill0.jsonl > $R/bench-default.txt 2>&1
echo "default rc $? [$SECONDS s]"; tail -1 $R/bench-default.txt
python3 - $R <<'PY'
import json, sys, collections, glob
R = sys.argv[1]
t = collections.defaultdict(dict)
for f in sorted(glob.glob(f"{R}/run437-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        k = (r["matrix"][-40:], r["rows"], r["nnz"])
        t[k][r["method"] + ("/" + r["variant"] if r.get("variant") else "")] = r
rows = []
for k, v in t.items():
    a, z, c = v["dasp"], v["dasp/fill0"], v["cusparse"]
    if k[2] < 1 << 20: continue
    da, dz = a["details"], z["details"]
    growth = (dz["stored_values"] - da["stored_values"]) / k[2]
    irr = da["nnz"]["medium_irregular"] / k[2]
    fill = da["parameters"].split("regular_block_min_fill=")[1].split(",")[0]
    extra = " ".join(f"{m.split('/')[1]} {c['median_ms'] / v[m]['median_ms']:.3f}" for m in ("dasp/f0r16", "dasp/f0r32", "dasp/r32") if m in v)
    rows.append((growth, k, irr, c["median_ms"] / a["median_ms"], c["median_ms"] / z["median_ms"], a["median_ms"] / z["median_ms"], (da.get("medium_rows_per_warp"), dz.get("medium_rows_per_warp")), extra))
for g, k, irr, sa, sz, ratio, rpw, extra in sorted(rows):
    print(f"growth {g:6.3f} irregular {irr:.3f} rpw {rpw} auto {sa:.3f} fill0 {sz:.3f} fill0/auto {ratio:.3f} [{extra}]  {k[0]} {k[2]}")
PY
cd $R && gzip -f *.jsonl && rm -f bench-*.txt && echo "[$SECONDS s]"

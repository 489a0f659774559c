#!/usr/bin/env bash
# Run 364: 4096 x 4096 at 70 %, n = 16, column-major B and C (issue 11's one weight below dense
# cuBLAS at 70 %): tiles' named parameters against auto, two passes; the same for row-major.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run364.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse_new.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
V="--variant c1024:kernel=tiles,chunk_columns=1024 --variant c2048:kernel=tiles,chunk_columns=2048 --variant c4096:kernel=tiles,chunk_columns=4096
 --variant cl:kernel=tiles,split_k=cluster --variant c1024cl:kernel=tiles,chunk_columns=1024,split_k=cluster
 --variant glob:kernel=tiles,split_k=global --variant c2048g:kernel=tiles,chunk_columns=2048,split_k=global
 --variant nodl:kernel=tiles,dependent_launch=off --variant s8:kernel=tiles,slice_columns=8 --variant gather:kernel=gather --variant g2048:kernel=gather,chunk_columns=2048
 --variant rows:kernel=rows"
for pass in 1 2; do for layout in column_major row_major; do
  SECONDS=0
  timeout 120 $b/tcsparse_new bench llm:4096x4096:s0.70:uniform llm:4096x4096:s0.70:skewed --methods tca,cublas_dense \
    --precisions fp16 --spmm-n 16 --layout $layout --runs 30 $V --output $R/sweep-$layout-$pass.jsonl > $R/sweep-$layout-$pass.txt 2>&1
  echo "sweep $layout $pass rc $? [$SECONDS s]"; grep -i "error\|refus" $R/sweep-$layout-$pass.txt | head -5
done; done
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
t = collections.defaultdict(list); det = {}
for f in glob.glob(sys.argv[1] + "/sweep-*.jsonl"):
    layout = f.split("sweep-")[1].rsplit("-", 1)[0]
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        if not r.get("check_passed", True): print("CHECK FAILED", f, r["matrix"], r.get("variant"))
        k = (layout, r["matrix"], r.get("variant") or r["method"])
        t[k].append(r["median_ms"] * 1000)
        d = r.get("details", {}); det[k] = (d.get("kernel"), d.get("chunks"), d.get("split_k"), d.get("slice_columns"))
for k in sorted(t):
    dense = statistics.median(t[(k[0], k[1], "cublas_dense")])
    x = statistics.median(t[k])
    print(f"{k[0]:12s} {k[1]:30s} {k[2]:12s} {x:6.2f} us  dense/this {dense / x:5.3f}  {det[k]}")
PY
cd $R && tar czf $OUT/run364-records.tar.gz *.jsonl

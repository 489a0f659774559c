#!/usr/bin/env bash
# Run 368: run 364's question once more with chunks of 256 columns (one segment a block, 16
# chunks) and 384: 4096 x 4096 at 70 %, n = 16, column-major and row-major, two passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run368.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
V="--variant c256:kernel=tiles,chunk_columns=256 --variant c768:kernel=tiles,chunk_columns=768
 --variant c256s8:kernel=tiles,chunk_columns=256,slice_columns=8"
for pass in 1 2; do for layout in column_major row_major; do
  timeout 120 $b/tcsparse bench llm:4096x4096:s0.70:uniform llm:4096x4096:s0.70:skewed llm:11008x4096:s0.70:uniform \
    --methods tca,cublas_dense --precisions fp16 --spmm-n 16 --layout $layout --runs 30 $V \
    --output $R/sweep-$layout-$pass.jsonl > $R/sweep-$layout-$pass.txt 2>&1
  echo "sweep $layout $pass rc $?"; grep -i "error" $R/sweep-$layout-$pass.txt | head -3
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
cd $R && tar czf $OUT/run368-records.tar.gz *.jsonl

#!/usr/bin/env bash
# Run 399: hbp's reorder inside blocks on the matrices whose x is one column block (circuit-like,
# kron-like, mip1-like, rajat01 and its replica), where hbp runs 0.5-0.7x cuSPARSE: reorder=none
# (rows in order: y stored in runs) and sort beside auto (hash), with cuSPARSE; fp64 / fp16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run399.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin399; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
M="gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61 gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=1000000,exponent=2.3,seed=62 gen:rmat:scale=18,edge_factor=48,seed=63 gen:rmat:scale=20,edge_factor=48,seed=65 gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67 .mx/suitesparse/rajat01.mtx.gz gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=10"
timeout 200 $b/tcsparse bench $M --methods hbp,cusparse --precisions fp64,fp16 --runs 30 \
  --variant none:reorder=none --variant sort:reorder=sort --output $R/run399.jsonl > /dev/null 2>&1
echo "bench rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys
R = sys.argv[1]
t = {}
for l in open(f"{R}/run399.jsonl"):
    r = json.loads(l)
    if "median_ms" not in r: print("error", r.get("matrix"), r.get("error")); continue
    if not r.get("check_passed", True): print("CHECK FAILED", r["matrix"], r.get("variant"))
    k = r.get("variant") or r["method"]
    t.setdefault((r["matrix"][:34], r["precision"]), {})[k] = (r["median_ms"] * 1e3, r.get("details", {}).get("combine_ms"))
for (m, p), d in sorted(t.items(), key=lambda x: (x[0][1], x[0][0])):
    c = d.get("cusparse", (None,))[0]
    print(f"{m:34s} {p} cusparse {c:7.1f} us | " + " | ".join(f"{k} {v[0]:7.1f} ({c / v[0]:.2f}x)" for k, v in d.items() if k != "cusparse"))
PY

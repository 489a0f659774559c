#!/usr/bin/env bash
# Run 403: hbp on the matrices whose x is one column block (circuit-like, rajat01 and its
# replica, mip1-like, kron-like 18-21): groups_per_ticket (auto takes 1 there: every group its own
# ticket, no head loaded ahead) 2 / 4 / 8, and with block_rows=4096 (lane efficiency 0.13 -> 0.55
# on circuit-like 680 k), against auto; fp64 and fp16; two passes. The binary: 6484a8b with run
# 297's packed-upload patch (not in the tree; the hbp kernels are 6484a8b's).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run403.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
M="gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61
gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=1000000,exponent=2.3,seed=62
gen:rmat:scale=18,edge_factor=48,seed=63 gen:rmat:scale=19,edge_factor=48,seed=64
gen:rmat:scale=20,edge_factor=48,seed=65 gen:rmat:scale=21,edge_factor=48,seed=66
gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67
.mx/suitesparse/rajat01.mtx.gz gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=10"
for pass in 1 2; do
  timeout 200 $b/tcsparse bench $M --methods hbp,cusparse --precisions fp64,fp16 --runs 50 --plan-builds 1 \
    --variant g2:groups_per_ticket=2 --variant g4:groups_per_ticket=4 --variant g8:groups_per_ticket=8 \
    --variant r4k:block_rows=4096 --variant r4kg4:block_rows=4096,groups_per_ticket=4 \
    --variant r4kg8:block_rows=4096,groups_per_ticket=8 \
    --output $R/run403-$pass.jsonl > /dev/null 2>&1
  echo "pass $pass rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, statistics, collections
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/run403-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        lab = r.get("variant") or r["method"]
        d = r.get("details", {})
        t[(r["matrix"][:40], r["precision"])][lab].append((r["median_ms"] * 1e3, d.get("spmv_ms", 0) * 1e3, d.get("combine_ms", 0) * 1e3))
labs = ["cusparse", "hbp", "g2", "g4", "g8", "r4k", "r4kg4", "r4kg8"]
print("matrix precision | " + " | ".join(labs) + "   (us, median of passes; hbp: total (spmv+combine))")
geo = collections.defaultdict(list)
for k, by in sorted(t.items()):
    base = statistics.median(x[0] for x in by["hbp"])
    out = f"{k[0]:40s} {k[1]}"
    for lab in labs:
        xs = by.get(lab)
        if not xs: out += " |   -  "; continue
        m = statistics.median(x[0] for x in xs)
        out += f" | {m:7.1f}"
        if lab not in ("cusparse",): geo[(k[1], lab)].append(base / m)
    c = statistics.median(x[2] for x in by["hbp"])
    out += f"  (hbp combine {c:.1f})"
    print(out)
import math
for (p, lab), v in sorted(geo.items()):
    print(p, lab, "geomean speedup over auto", round(math.exp(sum(map(math.log, v)) / len(v)), 3), "min", round(min(v), 3), "max", round(max(v), 3))
PY
cd $R && gzip *.jsonl && echo "[$SECONDS s]"

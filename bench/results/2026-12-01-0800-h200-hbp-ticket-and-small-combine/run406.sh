#!/usr/bin/env bash
# Run 406: the whole hbp suite, the previous binary (tcsparse_old: 6484a8b's hbp) and the new one
# (ticket without a memset, combine a warp a row where its rows are few, the combine a dependent
# launch) alternating, with cuSPARSE and DASP, fp64 and fp16, two passes; then kernel=groups
# against auto (tasks) where x fits shared memory (rajat01 fp64 / fp16, mip1-like fp16).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run406.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/tcsparse_old.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
for pass in 1 2; do
  for bin in tcsparse_old tcsparse; do
    M=hbp,cusparse; [ $pass = 1 ] && [ $bin = tcsparse ] && M=hbp,cusparse,dasp
    timeout 140 $b/$bin bench --suite hbp --matrix-dir .mx --methods $M --precisions fp64,fp16 --runs 20 \
      --plan-builds 1 --output $R/run406-$bin-$pass.jsonl > /dev/null 2>&1
    echo "$bin pass $pass rc $? [$SECONDS s]"
  done
done
timeout 60 $b/tcsparse bench .mx/suitesparse/rajat01.mtx.gz \
  gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67 \
  --methods hbp,cusparse --precisions fp64,fp16 --runs 100 --plan-builds 1 --variant groups:kernel=groups \
  --variant tasks:kernel=tasks --output $R/run406-kernels.jsonl > /dev/null 2>&1
echo "kernels rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, statistics, collections, math
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/run406-tcsparse*.jsonl")):
    b = "old" if "tcsparse_old" in f else "new"
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        m = r["method"]; lab = b if m == "hbp" else m
        d = r.get("details", {})
        t[(r["matrix"], r["precision"])][lab].append((r["median_ms"] * 1e3, d.get("kernel", ""), d.get("cols", r.get("cols", 0))))
geo = collections.defaultdict(list)
for k, by in sorted(t.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    med = {lab: statistics.median(x[0] for x in xs) for lab, xs in by.items()}
    print(f"{k[1]} {k[0]:22s} cusparse {med['cusparse']:8.1f} dasp {med.get('dasp', float('nan')):8.1f} old {med['old']:8.1f} new {med['new']:8.1f}  new/old {med['old']/med['new']:.3f}  new/cusparse {med['cusparse']/med['new']:.3f} ({by['new'][0][1]})")
    geo[(k[1], "new over old")].append(med["old"] / med["new"])
    geo[(k[1], "old over cusparse")].append(med["cusparse"] / med["old"])
    geo[(k[1], "new over cusparse")].append(med["cusparse"] / med["new"])
for (p, lab), v in sorted(geo.items()):
    print(p, lab, "geomean", round(math.exp(sum(map(math.log, v)) / len(v)), 3), "min", round(min(v), 3), "max", round(max(v), 3), len(v))
t2 = collections.defaultdict(dict)
for l in open(f"{R}/run406-kernels.jsonl"):
    r = json.loads(l)
    if "median_ms" not in r: continue
    t2[(r["matrix"][:30], r["precision"])][r.get("variant") or r["method"]] = (round(r["median_ms"] * 1e3, 1), r.get("details", {}).get("kernel"))
for k, v in sorted(t2.items()): print(k, v)
PY
cd $R && gzip *.jsonl && echo "[$SECONDS s]"

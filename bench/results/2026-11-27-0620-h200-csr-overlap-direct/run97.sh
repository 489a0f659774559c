#!/usr/bin/env bash
# Run 97: csr_overlap copy=direct with the row offsets loaded ahead, 8 (tcsparse) against 16
# (tcsparse16) products in flight, default suite fp64 / fp32; then Nsight Compute of the direct
# kernel on stencil3d_100 fp64 and stencil2d_2000 fp32.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run97.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; xz -dc .device-bin/tcsparse16.xz > $b/tcsparse16; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for bin in tcsparse tcsparse16; do
timeout 200 $b/$bin bench --suite default --methods cusparse,csr_overlap --precisions fp64,fp32 \
  --variant direct:copy=direct \
  --plan-builds 1 --runs 20 --output $R/direct-$bin.jsonl > $R/direct-$bin.txt 2>&1
echo "bench $bin rc $? [$SECONDS s]"
done
python3 - $R/direct-tcsparse.jsonl $R/direct-tcsparse16.jsonl <<'PY'
import json, sys, math, collections
t = collections.defaultdict(dict)
for tag, path in zip(["8", "16"], sys.argv[1:]):
    for line in open(path):
        r = json.loads(line)
        if not r.get("check_passed"): print("CHECK FAILED", r["matrix"], r["method"], r.get("variant")); continue
        label = r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else "") + tag
        t[(r["matrix"][:20], r["precision"], r["nnz"])][label] = r["median_ms"]
        if r["method"] == "cusparse": t[(r["matrix"][:20], r["precision"], r["nnz"])]["cusparse"+tag] = r["median_ms"]
labels = ["csr_overlap8", "csr_overlap[direct]8", "csr_overlap[direct]16"]
print("matrix precision | speedup over cusparse of the same run: default, direct 8, direct 16")
agg = collections.defaultdict(list)
for k, v in sorted(t.items(), key=lambda kv: (kv[0][1], -kv[0][2])):
    sp = [v["cusparse" + l[-1:] if not l.endswith("16") else "cusparse16"] / v[l] if l in v else float("nan") for l in labels]
    print(*k[:2], "|", " ".join("%.3f" % x for x in sp))
    for l, x in zip(labels, sp):
        if x == x: agg[(k[1], "large" if k[2] >= 10_000_000 else "small", l)].append(x)
for key, xs in sorted(agg.items()):
    print(*key, "geomean %.3f min %.3f" % (math.exp(sum(map(math.log, xs)) / len(xs)), min(xs)))
PY
gzip -f $R/*.jsonl
which ncu || export PATH=$PATH:/usr/local/cuda/bin
SECONDS=0
for spec in "stencil3d_100 gen:stencil3d:nx=100,ny=100,nz=100,seed=2 fp64" "stencil2d_2000 gen:stencil2d:nx=2000,ny=2000,seed=1 fp32" "rmat_20 gen:rmat:scale=20,edge_factor=16,seed=3 fp64"; do
  set -- $spec
  timeout 120 ncu --set full --clock-control none -k regex:warp_direct --launch-skip 5 --launch-count 1 \
    $b/tcsparse bench $2 --methods csr_overlap --param copy=direct --precisions $3 --plan-builds 1 --runs 2 --output /tmp/x.jsonl > $R/ncu-direct-$1-$3.txt 2>&1
  echo "ncu $1 rc $? [$SECONDS s]"
  grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Issue Slots Busy|Executed Ipc A|Theoretical Occupancy|Block Limit|L1/TEX Hit|L2 Hit|Warp Cycles Per Issued|Eligible Warps|No Eligible|Executed Instructions  " $R/ncu-direct-$1-$3.txt | head -30
done

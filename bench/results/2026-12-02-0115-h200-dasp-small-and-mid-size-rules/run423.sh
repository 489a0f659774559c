#!/usr/bin/env bash
# Run 423 (issue 8, the binary of run 421): (1) long_groups_per_warp=4 against auto on small
# skewed matrices whose longest row is 1024-2048 values at 17-47 times the mean (split by auto in
# fp64, not in fp16 / bf16, where such a row is 8-16 groups of 128 values); (2) fp64_block_order
# row / column as variants on the default suite, the rajat01 replicas and the mid-size matrices.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run423.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/tcsparse
SECONDS=0
band=(
  gen:random:rows=20000,cols=20000,dist=power_law,min=4,max=1800,exponent=1.7,seed=66
  gen:rmat:scale=11,edge_factor=192,seed=51 gen:rmat:scale=11,edge_factor=96,seed=63
  gen:rmat:scale=12,edge_factor=48,seed=61 gen:rmat:scale=12,edge_factor=64,seed=52
  gen:rmat:scale=12,edge_factor=96,seed=65 gen:rmat:scale=13,edge_factor=32,seed=64
  gen:random:rows=40000,cols=40000,dist=power_law,min=2,max=1500,exponent=1.9,seed=67
)
for pass in 1 2; do
  timeout 60 $b/tcsparse bench "${band[@]}" --methods dasp,cusparse --precisions fp64,fp16,bf16 --runs 30 --plan-builds 1 \
    --variant lg4:long_groups_per_warp=4 --variant lg32:long_groups_per_warp=32 \
    --output $R/run423-band-$pass.jsonl > $R/bench-band-$pass.txt 2>&1
  echo "band $pass rc $? [$SECONDS s]"; tail -1 $R/bench-band-$pass.txt
done
timeout 120 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64 --runs 30 --plan-builds 1 \
  gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=463,seed=10 gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=100,seed=10 \
  gen:rmat:scale=19,edge_factor=6,seed=54 gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61 \
  gen:rmat:scale=18,edge_factor=48,seed=63 gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67 \
  --variant row:fp64_block_order=row --variant column:fp64_block_order=column \
  --output $R/run423-block-order.jsonl > $R/bench-block-order.txt 2>&1
echo "block order rc $? [$SECONDS s]"; tail -1 $R/bench-block-order.txt
python3 - $R <<'PY'
import json, sys, collections, math, glob, statistics
for name in ("band", "block-order"):
    t = collections.defaultdict(lambda: collections.defaultdict(list)); det = {}
    for f in sorted(glob.glob(f"{sys.argv[1]}/run423-{name}*.jsonl")):
        for l in open(f):
            r = json.loads(l)
            if "median_ms" not in r: continue
            lab = r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else "")
            k = (r["precision"], r["matrix"][-45:], r["nnz"])
            t[k][lab].append(r["median_ms"] * 1e3)
            if lab == "dasp":
                d = r.get("details") or {}
                det[k] = (d.get("max_medium_row_length"), d.get("long_groups_per_warp"), d.get("column_major_blocks"))
    geo = collections.defaultdict(list)
    for k, v in sorted(t.items()):
        v = {m: statistics.median(x) for m, x in v.items()}
        c = v["cusparse"]
        print(name, k, "cusparse %.1f us" % c, det.get(k), " ".join(f"{m} {c / x:.3f}" for m, x in sorted(v.items()) if m != "cusparse"))
        for m, x in v.items():
            if m != "cusparse": geo[(k[0], m)].append(c / x)
    for (p, m), xs in sorted(geo.items()):
        print(name, p, m, "geomean", round(math.exp(sum(map(math.log, xs)) / len(xs)), 3), "min", round(min(xs), 3), len(xs))
PY
cd $R && gzip -f *.jsonl && echo "[$SECONDS s]"
cd $OUT && tar cf run423.tar r && rm -rf r

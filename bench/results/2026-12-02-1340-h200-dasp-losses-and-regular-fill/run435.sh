#!/usr/bin/env bash
# Run 435 (issue 8, DASP), binary of cb4c9fb:
#  A. heavy-tailed matrices of >= 1 M rows (one medium row-block a warp, medium rows sorted over
#     the whole matrix): windows of 64 k / 256 k / 1 M caller rows as variants, fp64 and fp16 --
#     is there a rule by mean row length (run 427: circuit-like 4 M rows of mean 4 fp64 0.93x ->
#     0.99x with 256 k, matrices of mean 9.4 lost 5 %)?
#  B. the default suite, every precision, three plan builds a case (the state of issue 8's goals).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run435.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
heavy=(
  gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=1000000,exponent=2.3,seed=62
  gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=100000,exponent=2.3,seed=201
  gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=200000,exponent=2.5,seed=202
  gen:random:rows=8000000,cols=8000000,dist=power_law,min=1,max=1000000,exponent=2.4,seed=203
  gen:random:rows=3000000,cols=3000000,dist=power_law,min=1,max=50000,exponent=2.1,seed=204
  gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=20000,exponent=2,seed=5
  gen:random:rows=1500000,cols=1500000,dist=power_law,min=2,max=100000,exponent=2.2,seed=209
  gen:rmat:scale=21,edge_factor=4,seed=205 gen:rmat:scale=22,edge_factor=4,seed=206
  gen:rmat:scale=22,edge_factor=2,seed=207 gen:rmat:scale=23,edge_factor=2,seed=208
  gen:rmat:scale=21,edge_factor=8,seed=210
  gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=463,seed=10
  gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=200,seed=211
)
timeout 300 $b/tcsparse bench "${heavy[@]}" --methods dasp,cusparse --precisions fp64,fp16 --runs 30 \
  --variant w64k:medium_row_window=65536 --variant w256k:medium_row_window=262144 \
  --variant w1m:medium_row_window=1048576 --output $R/run435-windows.jsonl > $R/bench-windows.txt 2>&1
echo "windows rc $? [$SECONDS s]"; tail -1 $R/bench-windows.txt
timeout 200 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16,bf16 \
  --runs 30 --plan-builds 3 --output $R/run435-default.jsonl > $R/bench-default.txt 2>&1
echo "default rc $? [$SECONDS s]"; tail -1 $R/bench-default.txt
python3 - $R <<'PY'
import json, sys, collections, math
R = sys.argv[1]
def gm(xs): return math.exp(sum(map(math.log, xs)) / len(xs))
t = collections.defaultdict(dict); det = {}
for l in open(f"{R}/run435-windows.jsonl"):
    r = json.loads(l)
    if "median_ms" not in r: continue
    k = (r["precision"], r["matrix"][-58:], r["rows"], r["nnz"])
    m = r["method"] + ("/" + r["variant"] if r.get("variant") else "")
    t[k][m] = r["median_ms"] * 1e3
    if m == "dasp":
        d = r["details"]; det[k] = (d.get("medium_rows_per_warp"), d.get("medium_row_window"), d.get("rows", {}).get("medium"), d.get("max_medium_row_length"))
for k in sorted(t):
    c = t[k]["cusparse"]
    print(k[0], k[1], k[2], k[3], "mean", round(k[3] / k[2], 2), "rpw/window/medium/maxlen", det[k],
          " ".join(f"{m.split('/')[-1]} {c / v:.3f}" for m, v in sorted(t[k].items()) if m.startswith("dasp")))
g = collections.defaultdict(list); mins = collections.defaultdict(lambda: 9)
for l in open(f"{R}/run435-default.jsonl"):
    r = json.loads(l)
    if "median_ms" in r: g[(r["precision"], r["matrix"])].append(r)
by = collections.defaultdict(list)
for (p, m), rs in sorted(g.items()):
    d = {r["method"]: r for r in rs}
    s = d["cusparse"]["median_ms"] / d["dasp"]["median_ms"]; by[p].append(s)
    b = d["dasp"]["plan_build_ms"] / d["dasp"]["median_ms"]
    print(p, m, d["dasp"]["nnz"], f"dasp {s:.3f}x cuSPARSE build {b:.0f} SpMV-times")
for p, xs in sorted(by.items()): print(p, "default suite geomean", round(gm(xs), 3), "min", round(min(xs), 3), len(xs))
PY
cd $R && gzip -f *.jsonl && rm -f bench-*.txt && echo "[$SECONDS s]"

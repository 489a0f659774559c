#!/usr/bin/env bash
# Run 436 (issue 8, DASP), binary of cb4c9fb: the losses run 435 found (R-MAT graphs of 2-4
# edges a vertex 0.80-0.99x fp64, the rajat01 replica x200 0.90x / 0.87x, power-law rows of
# 3-4 M rows 0.92x fp64), each named parameter as a variant.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run436.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b; xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/*
SECONDS=0
mats=(
  gen:rmat:scale=21,edge_factor=4,seed=205 gen:rmat:scale=22,edge_factor=4,seed=206
  gen:rmat:scale=22,edge_factor=2,seed=207 gen:rmat:scale=23,edge_factor=2,seed=208
  gen:rmat:scale=20,edge_factor=4,seed=212 gen:rmat:scale=21,edge_factor=2,seed=213
  gen:rmat:scale=24,edge_factor=2,seed=214 gen:rmat:scale=20,edge_factor=6,seed=215
  gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=200,seed=211
  gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=463,seed=10
  gen:random:rows=3000000,cols=3000000,dist=power_law,min=1,max=50000,exponent=2.1,seed=204
  gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=100000,exponent=2.3,seed=201
)
timeout 400 $b/tcsparse bench "${mats[@]}" --methods dasp,cusparse --precisions fp64,fp16 --runs 30 \
  --variant int:row_order=internal --variant m64:max_medium_row_length=64 --variant m128:max_medium_row_length=128 \
  --variant rpw16:medium_rows_per_warp=16 --variant rpw32:medium_rows_per_warp=32 \
  --variant fill0:regular_block_min_fill=0 --variant fill1:regular_block_min_fill=1 --variant bif4:blocks_in_flight=4 \
  --variant mml4:medium_min_row_length=4 --variant lg8:long_groups_per_warp=8 --variant mbw4:medium_blocks_per_warp=4 \
  --output $R/run436-variants.jsonl > $R/bench-variants.txt 2>&1
echo "variants rc $? [$SECONDS s]"; tail -1 $R/bench-variants.txt
python3 - $R <<'PY'
import json, sys, collections
R = sys.argv[1]
t = collections.defaultdict(dict); det = {}
for l in open(f"{R}/run436-variants.jsonl"):
    r = json.loads(l)
    if "median_ms" not in r: continue
    k = (r["precision"], r["matrix"][-44:], r["rows"], r["nnz"])
    m = r["method"] + ("/" + r["variant"] if r.get("variant") else "")
    t[k][m] = r["median_ms"] * 1e3
    if r["method"] == "dasp":
        d = r["details"]; det[(k, m)] = (d.get("row_order"), d.get("long_column_share"))
for k in sorted(t):
    c = t[k]["cusparse"]
    print(k[0], k[1], k[2], k[3], "mean", round(k[3] / k[2], 2), det.get((k, "dasp")), det.get((k, "dasp/int")))
    print("   ", " ".join(f"{m.split('/')[-1]} {c / v:.3f}" for m, v in sorted(t[k].items(), key=lambda kv: kv[1]) if m.startswith("dasp")))
PY
cd $R && gzip -f *.jsonl && rm -f bench-*.txt && echo "[$SECONDS s]"

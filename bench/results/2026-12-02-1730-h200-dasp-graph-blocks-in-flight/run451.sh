#!/usr/bin/env bash
# Run 451 (issue 8, DASP): the losses run 450 found on block-diagonal replicas of heavy-tailed
# blocks (local columns), every layout variant that could keep rows near each other, fp64 and fp16.
set -u
OUT=${OUT:-/tmp/out}; R=$OUT/r; mkdir -p $R
log=$R/run451.log
say() { echo "$*" | tee -a $log; }
save() { tar czf $OUT/run451.tgz -C $R . ; }
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/*
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
SECONDS=0
S=.mx/suitesparse G=.mx/gen
M=(gen:replicate:file=$G/pl_min3_6833.mtx.gz,copies=150,seed=810 gen:replicate:file=$G/pl_min4_6833.mtx.gz,copies=115,seed=811
   gen:replicate:file=$G/pl_min1_6833.mtx.gz,copies=350,seed=812
   gen:replicate:file=$S/ca-CondMat.mtx.gz,copies=45,seed=814 gen:replicate:file=$S/case9.mtx.gz,copies=60,seed=813
   gen:replicate:file=$S/rajat01.mtx.gz,copies=200,seed=211)
timeout -k 5 250 $b/tcsparse bench "${M[@]}" --methods dasp,cusparse --precisions fp64,fp16 --runs 20 \
  --variant w4k:medium_row_window=4096 --variant w64k:medium_row_window=65536 \
  --variant plan:row_order=plan --variant iy:row_order=internal_y --variant int:row_order=internal \
  --variant paper:regular_block_min_fill=0.75 --variant rpw16:medium_rows_per_warp=16 \
  --variant bif2:blocks_in_flight=2 --variant bif4:blocks_in_flight=4 \
  --output $R/run451-local.jsonl > $R/local.txt 2>&1
say "local rc $? [$SECONDS s]"; tail -n 1 $R/local.txt | tee -a $log
save
python3 - $R <<'PY' | tee -a $log
import json, sys, collections, statistics
t = collections.defaultdict(dict); info = {}
for l in open(f"{sys.argv[1]}/run451-local.jsonl"):
    r = json.loads(l)
    if "median_ms" not in r: continue
    k = (r["matrix"][-40:], r["precision"])
    t[k][r.get("variant") or r["method"]] = r["median_ms"]
    if r["method"] == "dasp" and not r.get("variant"):
        d = r["details"]
        info[k] = (d.get("medium_row_window"), d.get("medium_rows_per_warp"), d.get("blocks_in_flight"), d.get("row_order"), round(r.get("padding_ratio", 0), 3))
for k, v in sorted(t.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    c = v["cusparse"]
    print(k, info.get(k), " ".join(f"{m} {c / x:.3f}" for m, x in sorted(v.items()) if m != "cusparse"))
PY
save
say "done [$SECONDS s]"

#!/usr/bin/env bash
# Run 450 (issue 8, DASP): is it local columns that make fp16 rajat01 want 2 blocks in flight?
# blocks_in_flight=2 as a variant (the long-rows rule gives 4) on block-diagonal replicas of
# generated power-law blocks (6833 rows each, as rajat01: local columns) against the same rows
# with random columns, case9 / ca-CondMat replicas and rajat01 x150 / x200; fp16 and fp64, two passes.
set -u
OUT=${OUT:-/tmp/out}; R=$OUT/r; mkdir -p $R
log=$R/run450.log
say() { echo "$*" | tee -a $log; }
save() { tar czf $OUT/run450.tgz -C $R . ; }
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/*
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
SECONDS=0
S=.mx/suitesparse G=.mx/gen
M=(gen:replicate:file=$G/pl_min3_6833.mtx.gz,copies=150,seed=810 gen:replicate:file=$G/pl_min4_6833.mtx.gz,copies=115,seed=811
   gen:replicate:file=$G/pl_min1_6833.mtx.gz,copies=350,seed=812
   gen:random:rows=1024950,cols=1024950,dist=power_law,min=3,max=2000,exponent=2.5,seed=804
   gen:random:rows=785795,cols=785795,dist=power_law,min=4,max=3000,exponent=2.6,seed=805
   gen:replicate:file=$S/case9.mtx.gz,copies=60,seed=813 gen:replicate:file=$S/ca-CondMat.mtx.gz,copies=45,seed=814
   gen:replicate:file=$S/rajat01.mtx.gz,copies=150,seed=720 gen:replicate:file=$S/rajat01.mtx.gz,copies=200,seed=211)
for pass in 1 2; do
  timeout -k 5 200 $b/tcsparse bench "${M[@]}" --methods dasp,cusparse --precisions fp16,fp64 --runs 20 \
    --variant bif2:blocks_in_flight=2 --output $R/run450-local-$pass.jsonl > $R/local-$pass.txt 2>&1
  say "local pass $pass rc $? [$SECONDS s]"; tail -n 1 $R/local-$pass.txt | tee -a $log
  save
done
python3 - $R <<'PY' | tee -a $log
import json, sys, collections, statistics
t = collections.defaultdict(lambda: collections.defaultdict(list)); info = {}
for p in (1, 2):
    for l in open(f"{sys.argv[1]}/run450-local-{p}.jsonl"):
        r = json.loads(l)
        if "median_ms" not in r: continue
        k = (r["matrix"][-42:], r["precision"])
        t[k][r.get("variant") or r["method"]].append(r["median_ms"])
        if r["method"] == "dasp" and not r.get("variant"):
            d = r["details"]; nz = max(r["nnz"], 1)
            info[k] = (r["nnz"], round(d["nnz"]["long"] / nz, 3), d.get("blocks_in_flight"), d.get("medium_rows_per_warp"), d.get("row_order"))
for k, v in sorted(t.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    c = statistics.median(v["cusparse"]); d = statistics.median(v["dasp"]); b2 = statistics.median(v["bif2"])
    print(k, info.get(k), f"dasp {c / d:.3f} bif2 {c / b2:.3f} bif2-over-auto {d / b2:.3f}")
PY
save
say "done [$SECONDS s]"

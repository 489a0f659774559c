#!/usr/bin/env bash
# Run 447 (issue 8, DASP): blocks_in_flight=2 as a variant where the long-rows rule gives 4
# (heavy tails of at most 64 MiB stored, and the fp64 graphs' bound), fp64 / fp16 / bf16, on
# rajat01 replicas of 25-200 copies, power-law rows, circuit- and mip1-like and R-MAT graphs;
# two passes.
set -u
OUT=${OUT:-/tmp/out}; R=$OUT/r; mkdir -p $R
log=$R/run447.log
say() { echo "$*" | tee -a $log; }
save() { tar czf $OUT/run447.tgz -C $R . ; }
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
SECONDS=0
S=.mx/suitesparse
M=(gen:replicate:file=$S/rajat01.mtx.gz,copies=25,seed=740 gen:replicate:file=$S/rajat01.mtx.gz,copies=50,seed=741
   gen:replicate:file=$S/rajat01.mtx.gz,copies=75,seed=742 gen:replicate:file=$S/rajat01.mtx.gz,copies=100,seed=301
   gen:replicate:file=$S/rajat01.mtx.gz,copies=150,seed=720 gen:replicate:file=$S/rajat01.mtx.gz,copies=200,seed=211
   gen:random:rows=1500000,cols=1500000,dist=power_law,min=1,max=50000,exponent=2.1,seed=717
   gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=100000,exponent=2.3,seed=719
   gen:random:rows=1000000,cols=1000000,dist=power_law,min=1,max=300000,exponent=2.3,seed=718
   gen:random:rows=1000000,cols=1000000,dist=power_law,min=3,max=2000,exponent=2.5,seed=317
   gen:random:rows=200000,cols=200000,dist=power_law,min=1,max=20000,exponent=2,seed=743
   gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61
   gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67
   gen:rmat:scale=20,edge_factor=6,seed=215 gen:rmat:scale=21,edge_factor=4,seed=205
   gen:rmat:scale=22,edge_factor=2,seed=207 gen:rmat:scale=21,edge_factor=2,seed=213
   gen:rmat:scale=18,edge_factor=8,seed=744)
for pass in 1 2; do
  timeout -k 5 250 $b/tcsparse bench "${M[@]}" --methods dasp,cusparse --precisions fp64,fp16,bf16 --runs 20 \
    --variant bif2:blocks_in_flight=2 --output $R/run447-bif2-$pass.jsonl > $R/bif2-$pass.txt 2>&1
  say "bif2 pass $pass rc $? [$SECONDS s]"; tail -n 1 $R/bif2-$pass.txt | tee -a $log
  save
done
python3 - $R <<'PY' | tee -a $log
import json, sys, collections, statistics
t = collections.defaultdict(lambda: collections.defaultdict(list)); info = {}
for p in (1, 2):
    try: lines = open(f"{sys.argv[1]}/run447-bif2-{p}.jsonl")
    except OSError: continue
    for l in lines:
        r = json.loads(l)
        if "median_ms" not in r: continue
        k = (r["matrix"][-36:], r["precision"])
        t[k][r.get("variant") or r["method"]].append(r["median_ms"])
        if r["method"] == "dasp" and not r.get("variant"):
            d = r["details"]; n = d["nnz"]; nz = max(r["nnz"], 1); vb = 8 if r["precision"] == "fp64" else 2
            info[k] = dict(nnz=nz, stored=d["stored_values"], mib=round(d["stored_values"] * (vb + 4) / 2**20), long=round(n["long"] / nz, 2),
                           empty=round(d["rows"]["empty"] / max(r["rows"], 1), 2), lt=d["long_warp_tasks"], warps=d["warps"],
                           rpw=d["medium_rows_per_warp"], bif=d["blocks_in_flight"], order=d["row_order"])
for k, v in sorted(t.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    c = statistics.median(v["cusparse"]); d = statistics.median(v["dasp"]); b2 = statistics.median(v["bif2"])
    print(k, f"dasp {c / d:.3f} bif2 {c / b2:.3f} dasp_us {d * 1e3:.1f} bif2/dasp {d / b2:.3f}", info.get(k))
PY
save
say "done [$SECONDS s]"

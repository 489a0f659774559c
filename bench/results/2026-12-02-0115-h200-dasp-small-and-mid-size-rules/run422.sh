#!/usr/bin/env bash
# Run 422 (issue 8): DASP on rajat01 replicated block-diagonally to 20 M nonzeros, fp64 0.71x
# cuSPARSE in run 421 (fp16 1.05x): named parameters as variants, and the replica at 100 / 200
# copies, to find what sets its time. The binary of run 421.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run422.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
timeout 200 $b/tcsparse bench gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=463,seed=10 \
  gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=100,seed=10 gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=200,seed=10 \
  --methods dasp,cusparse --precisions fp64,fp16 --runs 30 --plan-builds 1 \
  --variant mr16:medium_rows_per_warp=16 --variant mr32:medium_rows_per_warp=32 --variant win:medium_row_window=4096 \
  --variant rowmajor:fp64_block_order=row --variant bif4:blocks_in_flight=4 --variant fill75:regular_block_min_fill=0.75 \
  --variant internal:row_order=internal --variant plan:row_order=plan --variant m64:max_medium_row_length=64 \
  --variant lg8:long_groups_per_warp=8 --variant all:kernel_parts=all --variant sy:short_y=staged \
  --output $R/run422-rajat-replica.jsonl > $R/bench.txt 2>&1
echo "bench rc $? [$SECONDS s]"; tail -1 $R/bench.txt
python3 - $R <<'PY'
import json, sys, collections
t = collections.defaultdict(dict)
for l in open(f"{sys.argv[1]}/run422-rajat-replica.jsonl"):
    r = json.loads(l)
    if "median_ms" not in r: continue
    lab = r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else "")
    t[(r["precision"], r["nnz"])][lab] = r["median_ms"] * 1e3
for k, v in sorted(t.items()):
    c = v["cusparse"]
    print(k, "cusparse %.1f us" % c, " ".join(f"{m} {c / x:.3f}" for m, x in sorted(v.items()) if m != "cusparse"))
PY
cd $R && gzip -f *.jsonl && echo "[$SECONDS s]"
cd $OUT && tar cf run422.tar r && rm -rf r

#!/usr/bin/env bash
# Run 441 (issue 8, DASP fp64 caller-order losses), a throwaway binary (tcsparse_hack: 6bd363c
# plus two environment switches, not committed): how much of the caller-order loss is y's
# scatter and how much x's order?
#   TCSPARSE_HACK_ROWS_ONLY=1 with row_order=plan: y in the plan's order, x (columns) in the
#     caller's (the bench still permutes x, so its check fails; the time is what counts);
#   TCSPARSE_HACK_SKIP_EMPTY=1: the launch without the empty rows' warps (y of empty rows unset).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run441.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/tcsparse_hack.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=.mx/suitesparse
M=(gen:rmat:scale=22,edge_factor=2,seed=207 gen:rmat:scale=23,edge_factor=2,seed=208
   gen:rmat:scale=22,edge_factor=4,seed=206 gen:replicate:file=$S/rajat01.mtx.gz,copies=463,seed=10
   gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=100000,exponent=2.3,seed=201
   gen:replicate:file=$S/MISKnowledgeMap.mtx.gz,copies=100,seed=412)
SECONDS=0
for pass in 1 2; do
  timeout 100 $b/tcsparse_hack bench "${M[@]}" --methods dasp,cusparse --precisions fp64 --runs 30 \
    --variant plan:row_order=plan --variant int:row_order=internal --output $R/base-$pass.jsonl > /dev/null 2>&1
  echo "base $pass rc $? [$SECONDS s]"
  TCSPARSE_HACK_ROWS_ONLY=1 timeout 100 $b/tcsparse_hack bench "${M[@]}" --methods dasp,cusparse --precisions fp64 --runs 30 \
    --variant yplan:row_order=plan --output $R/yplan-$pass.jsonl > /dev/null 2>&1
  echo "yplan $pass rc $? [$SECONDS s]"
  TCSPARSE_HACK_SKIP_EMPTY=1 timeout 100 $b/tcsparse_hack bench "${M[@]}" --methods dasp,cusparse --precisions fp64 --runs 30 \
    --output $R/noempty-$pass.jsonl > /dev/null 2>&1
  echo "noempty $pass rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, statistics, collections
t = collections.defaultdict(lambda: collections.defaultdict(list)); info = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    tag = f.split("/")[-1].split("-")[0]
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        lab = r.get("variant") or r["method"]
        if lab == "dasp" and tag != "base": lab = "dasp_" + tag
        if lab == "cusparse": lab = "cusparse_" + tag
        t[r["matrix"][-40:]][lab].append(r["median_ms"] * 1e3)
        if lab == "dasp": info[r["matrix"][-40:]] = (r["rows"], r["nnz"], r["details"].get("rows"))
for m, by in t.items():
    c = statistics.median(by["cusparse_base"])
    print(m, info.get(m))
    print("   ", " ".join(f"{k} {statistics.median(v):.1f} ({c / statistics.median(v):.3f}x)" for k, v in sorted(by.items())))
PY
cd $R && gzip -f *.jsonl && tar cf $OUT/run441.tar . && cd - > /dev/null

#!/usr/bin/env bash
# Run 285: row_order=internal against caller below the auto rule's 1 M rows: the hbp suite's
# smaller graphs (kron_like_18 / 19: R-MAT 18 / 19 with 48 edges a vertex, 11 / 23 M nonzeros),
# R-MAT 16-19 with 16 edges, the circuit-like and mip1-like matrices and the rajat01 replica
# (fp64, fp16). Bench only.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run285.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
timeout 200 $b/tcsparse bench gen:rmat:scale=18,edge_factor=48,seed=63 gen:rmat:scale=19,edge_factor=48,seed=64 \
  gen:rmat:scale=16,edge_factor=16,seed=3 gen:rmat:scale=17,edge_factor=16,seed=3 gen:rmat:scale=18,edge_factor=16,seed=3 gen:rmat:scale=19,edge_factor=16,seed=3 \
  gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61 \
  gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=67 \
  --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 1 --runs 30 \
  --variant internal:row_order=internal --output $R/run285-small-graphs.jsonl > /dev/null 2>&1; echo "bench rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: print("error", r.get("matrix"), r.get("variant"), r.get("error")); continue
        t[(r["matrix_source"][-50:], r["rows"], r["nnz"], r["precision"], r["method"])][r.get("variant") or "default"].append(r["median_ms"])
for k, d in sorted(t.items()):
    if k[4] != "dasp": continue
    base = statistics.median(d["default"]); cus = statistics.median(t[k[:4] + ("cusparse",)]["default"])
    med = statistics.median(d["internal"])
    print(f"{k[0]:50s} rows {k[1]:8d} nnz {k[2]:9d} {k[3]} caller {base*1e3:7.1f} us ({cus/base:.3f}x cus) internal {med*1e3:7.1f} ({base/med:.3f}x caller)")
PY
cd $R && gzip *.jsonl && cp run285-small-graphs.jsonl.gz run285.log $OUT/
echo "[$SECONDS s]"

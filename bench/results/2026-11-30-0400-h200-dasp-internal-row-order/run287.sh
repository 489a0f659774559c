#!/usr/bin/env bash
# Run 287: hbp against DASP (row_order=auto) and cuSPARSE, side by side, on the hbp suite's five
# matrices of >= 8 M columns (issue 10's goals), fp64 and fp16. Bench only.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run287.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/tcsparse
SECONDS=0
timeout 200 $b/tcsparse bench gen:rmat:scale=23,edge_factor=16,seed=44 gen:rmat:scale=24,edge_factor=16,seed=45 \
  gen:random:rows=16000000,cols=16000000,dist=power_law,min=1,max=20000,exponent=2,seed=46 \
  gen:random:rows=16000000,cols=16000000,dist=uniform,min=4,max=12,seed=42 gen:banded:n=24000000,bandwidth=1,seed=68 \
  --methods hbp,dasp,cusparse --precisions fp64,fp16 --plan-builds 1 --runs 10 \
  --output $R/run287-large-columns.jsonl > /dev/null 2>&1; echo "bench rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, math
R = sys.argv[1]
rec = [json.loads(l) for f in glob.glob(f"{R}/*.jsonl") for l in open(f)]
t = {(r["matrix_source"], r["precision"], r["method"]): r for r in rec if "median_ms" in r}
for p in ("fp64", "fp16"):
    over_dasp, over_cus = [], []
    for m in sorted({k[0] for k in t}):
        if (m, p, "hbp") not in t: continue
        h, d, c = (t[(m, p, x)]["median_ms"] for x in ("hbp", "dasp", "cusparse"))
        over_dasp.append(d / h); over_cus.append(c / h)
        print(f"{m[4:70]:66s} {p} hbp {h*1e3:8.1f} us dasp {d*1e3:8.1f} ({t[(m, p, 'dasp')]['details'].get('row_order')}) cusparse {c*1e3:8.1f}  hbp/dasp {d/h:.3f}x hbp/cus {c/h:.3f}x dasp/cus {c/d:.3f}x")
    g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    print(f"{p}: hbp over dasp {g(over_dasp):.3f}x, hbp over cusparse {g(over_cus):.3f}x (geomean of {len(over_dasp)})")
PY
cd $R && gzip *.jsonl && cp run287-large-columns.jsonl.gz run287.log $OUT/
echo "[$SECONDS s]"

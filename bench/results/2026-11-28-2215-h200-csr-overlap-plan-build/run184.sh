#!/usr/bin/env bash
# Run 184: run 183's tcsparse binary on the default suite with its real-matrix replica
# (cage11 replicated block-diagonally to 20 M nonzeros; the call carries cage11.mtx.gz in
# .mx/suitesparse): plans from device CSR, every precision, and the applies against cuSPARSE.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run184.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 200 $b/tcsparse bench --suite default --matrix-dir .mx --methods csr_overlap --precisions fp64,fp32,fp16,bf16 \
  --from-device --plan-builds 5 --runs 10 --output $R/from-device.jsonl > /dev/null 2>&1
echo "from-device rc $? [$SECONDS s]"
timeout 200 $b/tcsparse bench --suite default --matrix-dir .mx --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
  --runs 20 --output $R/default.jsonl > /dev/null 2>&1
echo "default rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys
R = sys.argv[1]
worst = []
print("## plans from device CSR, matrices of 1 M nonzeros or more (build / fastest apply)")
for line in open(f"{R}/from-device.jsonl"):
    r = json.loads(line)
    if not r.get("check_passed", True): print("CHECK FAILED", r["matrix"], r["precision"])
    if r["nnz"] < 1e6: continue
    t = r["plan_build_ms"] / r["median_ms"]
    worst.append((t, r["matrix"], r["precision"]))
    if r["matrix"].startswith("replica") or t > 2.5:
        print(f"{r['matrix']:20s} {r['precision']:5s} {r['details'].get('partition','rows'):12s} build {r['plan_build_ms']:.3f} apply {r['median_ms']:.4f} ratio {t:.2f}")
print("max", max(worst))
t = {}
for line in open(f"{R}/default.jsonl"):
    r = json.loads(line)
    if not r.get("check_passed", True): print("CHECK FAILED", r["matrix"], r["precision"], r["method"])
    t[(r["matrix"], r["precision"], r["method"])] = r
print("## apply, speedup over cuSPARSE, matrices of 10 M nonzeros or more")
import math
for p in ["fp64", "fp32", "fp16", "bf16"]:
    s = [(t[(m, q, "cusparse")]["median_ms"] / r["median_ms"], m) for (m, q, me), r in t.items() if q == p and me == "csr_overlap" and r["nnz"] >= 1e7]
    g = math.exp(sum(math.log(x) for x, _ in s) / len(s))
    print(p, f"geomean {g:.3f}", " ".join(f"{m}={x:.3f}" for x, m in sorted(s)[:4]))
PY
cd $OUT && tar czf r.tgz r && rm -rf r

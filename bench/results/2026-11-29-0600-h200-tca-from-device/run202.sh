#!/usr/bin/env bash
# Run 202: run 201's binary. tca plan builds from host CSR and from device CSR on the 150 DLMC
# matrices (rn50 and transformer at 90 % sparsity), fp16, n = 256 (issue 11: plan build <= 10
# SpMM-times at N = 256), 3 builds each; dense cuBLAS and cuSPARSE beside them for the speed.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run202.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for from in host device; do
  flag=""; [ $from = device ] && flag="--from-device"
  timeout 250 $b/tcsparse bench .mx/dlmc --methods tca,cublas_dense,cusparse --precisions fp16 --spmm-n 256 \
    --runs 20 --plan-builds 3 $flag --output $R/dlmc-$from.jsonl > $R/dlmc-$from.txt 2>&1
  echo "dlmc from $from rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, statistics, math, collections
R = sys.argv[1]
t = {}
for origin in ("host", "device"):
    for line in open(f"{R}/dlmc-{origin}.jsonl"):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", origin, r["matrix"], r["method"])
        t[(r["matrix"], r["method"], origin)] = r
for origin in ("host", "device"):
    ratios = collections.defaultdict(list)
    for (m, me, o), r in t.items():
        if me != "tca" or o != origin: continue
        fam = m.split("/")[-2] if "/" in m else m
        ratios[fam].append((r["plan_build_ms"] / r["median_ms"], r["plan_build_ms"], r["nnz"], r["details"].get("build")))
    for fam, xs in sorted(ratios.items()):
        s = sorted(x[0] for x in xs)
        print(f"from {origin} {fam}: {len(xs)} matrices, plan build SpMM-times median {statistics.median(s):.1f}, "
              f"min {s[0]:.1f}, max {s[-1]:.1f}, <= 10: {sum(x <= 10 for x in s)}; builds ms median "
              f"{statistics.median(x[1] for x in xs):.3f}; built on the device {sum(x[3] == 'device' for x in xs)}")
    sp = [t[(m, "cublas_dense", o)]["median_ms"] / r["median_ms"] for (m, me, o), r in t.items() if me == "tca" and o == origin and (m, "cublas_dense", o) in t]
    print(f"from {origin}: tca over dense cuBLAS geomean {math.exp(sum(map(math.log, sp)) / len(sp)):.3f}")
# by size
print("from device: SpMM-times by nonzeros (tca)")
bins = collections.defaultdict(list)
for (m, me, o), r in t.items():
    if me == "tca" and o == "device":
        bins[int(math.log2(max(r["nnz"], 1)))].append(r["plan_build_ms"] / r["median_ms"])
for k in sorted(bins): print(f"  2^{k}: {len(bins[k])} median {statistics.median(bins[k]):.1f} max {max(bins[k]):.1f}")
PY
cd $OUT && tar czf r.tgz r && rm -rf r

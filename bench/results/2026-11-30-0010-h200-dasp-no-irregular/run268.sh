#!/usr/bin/env bash
# Run 268: the committed DASP defaults on the repository's real matrices (SuiteSparse and other,
# 341 files) in fp64 against cuSPARSE, with irregular_kernel=always (the kernel choice before
# this change) as a variant: no matrix the kernel rule moves may lose.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run268.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/tcsparse
SECONDS=0
timeout 500 $b/tcsparse bench .mx/real --methods dasp,cusparse --precisions fp64 --plan-builds 1 --runs 10 \
  --warmup-ms 2 --variant always:irregular_kernel=always --output $R/real-fp64.jsonl > $R/real-fp64.txt 2>&1
echo "real rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, collections, math
R = sys.argv[1]
t = collections.defaultdict(dict)
for l in open(f"{R}/real-fp64.jsonl"):
    r = json.loads(l)
    if "median_ms" not in r: continue
    t[r["matrix"]][(r["method"], r.get("variant") or "")] = r
moved, ratios, over = [], [], []
for m, d in t.items():
    a, c, al = d.get(("dasp", "")), d.get(("cusparse", "")), d.get(("dasp", "always"))
    if not (a and c and al): continue
    over.append((c["median_ms"] / a["median_ms"], m))
    if a["details"].get("irregular_kernel") == 0:
        moved.append((al["median_ms"] / a["median_ms"], m, a["nnz"]))
print("matrices", len(over), "geomean over cusparse", round(math.exp(sum(math.log(x) for x, _ in over) / len(over)), 3),
      "min", min(over))
print("kernel without the irregular part on", len(moved), "matrices; speed over always: geomean",
      round(math.exp(sum(math.log(x) for x, _, _ in moved) / max(1, len(moved))), 3) if moved else "-",
      "min", min(moved) if moved else "-", "max", max(moved) if moved else "-")
for x, m, n in sorted(moved)[:10]: print("   ", round(x, 3), m, n)
print("below 0.95x cuSPARSE:", sorted(o for o in over if o[0] < 0.95))
PY
cd $R && gzip *.jsonl && tar czf $OUT/run268.tgz . && cp run268.log $OUT/
echo "[$SECONDS s]"

#!/usr/bin/env bash
# Run 414: the share of fixed groups on the matrices whose x is one column block: the hbp suite up
# to 50 M nonzeros (circuit-like 680 k / 4 M, kron-like 18-20, mip1-like, rajat01 and its replica)
# at fixed_group_share 0.25 / 0.4 / 0.5 / 0.6 / 0.7 beside 0 (the default) and cuSPARSE, two
# passes; then the default suite (generated and the replica), hbp at 0 and 0.5, fp64 and fp16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run414.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
for pass in 1 2; do
  timeout 120 $b/tcsparse bench --suite hbp --matrix-dir .mx --max-nnz 50000000 --methods hbp,cusparse \
    --precisions fp64,fp16 --runs 30 --plan-builds 1 --variant f25:fixed_group_share=0.25 \
    --variant f40:fixed_group_share=0.4 --variant f50:fixed_group_share=0.5 \
    --variant f60:fixed_group_share=0.6 --variant f70:fixed_group_share=0.7 \
    --output $R/run414-hbp-$pass.jsonl > $R/bench-hbp-$pass.txt 2>&1
  echo "hbp suite pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-hbp-$pass.txt
done
for pass in 1 2; do
  timeout 150 $b/tcsparse bench --suite default --matrix-dir .mx --methods hbp \
    --precisions fp64,fp16 --runs 30 --plan-builds 1 --variant f50:fixed_group_share=0.5 \
    --output $R/run414-default-$pass.jsonl > $R/bench-default-$pass.txt 2>&1
  echo "default suite pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-default-$pass.txt
done
python3 - $R <<'PY'
import json, sys, glob, statistics, collections, math
for suite in ("hbp", "default"):
    t = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in sorted(glob.glob(f"{sys.argv[1]}/run414-{suite}-*.jsonl")):
        for l in open(f):
            r = json.loads(l)
            if "median_ms" not in r: continue
            d = r.get("details", {})
            t[(r["precision"], r["matrix"])][r.get("variant") or r["method"]].append(
                (r["median_ms"] * 1e3, d.get("kernel", ""), d.get("block_cols", 0) >= r["cols"]))
    geo = collections.defaultdict(list)
    for k, by in sorted(t.items()):
        med = {lab: statistics.median(x[0] for x in xs) for lab, xs in by.items()}
        kern, one = by["hbp"][0][1], by["hbp"][0][2]
        labs = sorted(l for l in med if l.startswith("f"))
        print(suite, k[0], f"{k[1]:22s} {kern:6s} {'one' if one else 'stripes'}", f"hbp {med['hbp']:8.1f}",
              f"cusparse {med['cusparse']:8.1f}" if "cusparse" in med else "",
              "  ".join(f"{lab} {med['hbp']/med[lab]:.3f}" for lab in labs))
        if kern == "groups":
            for lab in labs: geo[(k[0], lab, "one block" if one else "stripes")].append(med["hbp"] / med[lab])
    for (p, lab, where), v in sorted(geo.items()):
        print(suite, p, lab, where, "over 0: geomean", round(math.exp(sum(map(math.log, v)) / len(v)), 3),
              "min", round(min(v), 3), "max", round(max(v), 3), len(v))
PY
cd $R && gzip -f *.jsonl && echo "[$SECONDS s]"

#!/usr/bin/env bash
# Run 148: max_batch_size 1024 for direct warps (parameters only) against the default 512, every
# precision, default suite, twice: run 101 had M = 1024 helping fp32 stencils (0.85x -> 0.93x) but
# costing the long-row matrices, which partition=auto now gives merge tiles.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run148.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for round in 1 2; do
  timeout 200 $b/tcsparse bench --suite default --matrix-dir .mx --methods cusparse,csr_overlap \
    --variant m1k:max_batch_size=1024 --variant m1kr256:max_batch_size=1024,max_batch_rows=256 --variant m768:max_batch_size=768 \
    --precisions fp64,fp32,fp16,bf16 --plan-builds 1 --runs 20 --output $R/m1k-$round.jsonl > /dev/null 2>&1
  echo "round $round rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, os, collections, glob, math
R = sys.argv[1]
def g(v): return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(os.path.join(R, "m1k-*.jsonl"))):
    for line in open(f):
        r = json.loads(line)
        lab = r["method"] + ("/" + r["variant"] if r.get("variant") else "")
        if not r.get("check_passed"): print("CHECK FAILED", r["matrix"], lab, r["precision"], r.get("error", "")); continue
        t[(r["matrix"][:18], r["precision"], r["nnz"])][lab].append((r["median_ms"], (r.get("details") or {}).get("partition", "")))
labs = ["csr_overlap", "csr_overlap/m1k", "csr_overlap/m1kr256", "csr_overlap/m768"]
geo = collections.defaultdict(list)
for (m, p, nnz), v in sorted(t.items(), key=lambda kv: (kv[0][1], -kv[0][2])):
    c = sum(x[0] for x in v["cusparse"]) / len(v["cusparse"])
    row = []
    for lab in labs:
        if lab not in v: row.append("  -  "); continue
        s = c / (sum(x[0] for x in v[lab]) / len(v[lab])); row.append("%.3f" % s)
        geo[(p, lab, nnz >= 10_000_000)].append(s)
    print(f"{m:18s} {p} {nnz:>9d} " + " ".join(row), v["csr_overlap"][0][1])
for k, xs in sorted(geo.items()): print(k, "geomean %.3f min %.3f n %d" % (g(xs), min(xs), len(xs)))
PY
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r

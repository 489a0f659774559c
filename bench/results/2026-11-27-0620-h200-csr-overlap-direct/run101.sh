#!/usr/bin/env bash
# Run 101: copy=direct batch shapes (parameters only): max_batch_size 384 / 640 / 768 / 1024 and
# max_batch_rows 128, default suite fp64 / fp32, against cuSPARSE and the direct defaults (M = 512,
# R = 256), twice.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run101.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for round in 1 2; do
timeout 150 $b/tcsparse bench --suite default --methods cusparse,csr_overlap --precisions fp64,fp32 \
  --variant m384:copy=direct,max_batch_size=384 --variant m640:copy=direct,max_batch_size=640 \
  --variant m768:copy=direct,max_batch_size=768 --variant m1024:copy=direct,max_batch_size=1024 \
  --variant r128:copy=direct,max_batch_rows=128 --variant m768r128:copy=direct,max_batch_size=768,max_batch_rows=128 \
  --plan-builds 1 --runs 20 --output $R/shapes-$round.jsonl > /dev/null 2>&1
echo "bench $round rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, math, collections, os
t = collections.defaultdict(dict)
for rnd in ["1", "2"]:
    for line in open(os.path.join(sys.argv[1], f"shapes-{rnd}.jsonl")):
        r = json.loads(line)
        if not r.get("check_passed"): print("CHECK FAILED", r["matrix"], r["method"], r.get("variant")); continue
        t[(r["matrix"][:20], r["precision"], r["nnz"], rnd)][r["method"] + (":" + r["variant"] if r.get("variant") else "")] = r["median_ms"]
labels = ["csr_overlap", "csr_overlap:m384", "csr_overlap:m640", "csr_overlap:m768", "csr_overlap:m1024", "csr_overlap:r128", "csr_overlap:m768r128"]
agg = collections.defaultdict(list)
print("matrix precision round | over cusparse: " + " ".join(l.split(":")[-1] for l in labels))
for k, v in sorted(t.items(), key=lambda kv: (kv[0][1], -kv[0][2], kv[0][3])):
    if k[2] < 10_000_000: continue
    sp = [v["cusparse"] / v[l] for l in labels]
    print(k[0], k[1], k[3], "|", " ".join("%.3f" % x for x in sp))
    for l, x in zip(labels, sp): agg[(k[1], l)].append(x)
for key, xs in sorted(agg.items()):
    print(*key, "geomean %.3f min %.3f" % (math.exp(sum(map(math.log, xs)) / len(xs)), min(xs)))
PY
gzip -f $R/*.jsonl

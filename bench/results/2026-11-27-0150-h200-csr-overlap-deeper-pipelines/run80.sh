#!/usr/bin/env bash
# Run 80: csr_overlap's warp unit with deeper pipelines of smaller batches (parameters only),
# default suite fp64 / fp32, against cuSPARSE in the same run.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run80.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/*
SECONDS=0
timeout 400 $b/tcsparse bench --suite default --methods cusparse,csr_overlap --precisions fp64,fp32 \
  --variant m256s2:max_batch_size=256,pipeline_stages=2 \
  --variant m256s3:max_batch_size=256,pipeline_stages=3 \
  --variant m256s2r128:max_batch_size=256,pipeline_stages=2,max_batch_rows=128 \
  --variant m128s4:max_batch_size=128,pipeline_stages=4,max_batch_rows=128 \
  --variant m512s2:pipeline_stages=2 \
  --plan-builds 1 --runs 20 --output $R/stages.jsonl > $R/stages.txt 2>&1
echo "rc $? [$SECONDS s]"
python3 - $R/stages.jsonl <<'PY'
import json, sys, math, collections
t = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    r = json.loads(line)
    if not r.get("check_passed"): print("CHECK FAILED", r["matrix"], r["method"], r.get("variant")); continue
    label = r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else "")
    t[(r["matrix"][:20], r["precision"], r["nnz"])][label] = r["median_ms"]
labels = ["csr_overlap", "csr_overlap[m256s2]", "csr_overlap[m256s3]", "csr_overlap[m256s2r128]", "csr_overlap[m128s4]", "csr_overlap[m512s2]"]
print("matrix precision | speedup over cusparse: " + " ".join(l.replace("csr_overlap", "co") for l in labels))
agg = collections.defaultdict(list)
for k, v in sorted(t.items(), key=lambda kv: (kv[0][1], -kv[0][2])):
    if "cusparse" not in v: continue
    sp = [v["cusparse"] / v[l] if l in v else float("nan") for l in labels]
    print(*k[:2], "|", " ".join("%.3f" % x for x in sp))
    for l, x in zip(labels, sp):
        if x == x: agg[(k[1], "large" if k[2] >= 10_000_000 else "small", l)].append(x)
for key, xs in sorted(agg.items()):
    print(*key, "geomean %.3f min %.3f" % (math.exp(sum(map(math.log, xs)) / len(xs)), min(xs)))
PY
gzip -f $R/*.jsonl

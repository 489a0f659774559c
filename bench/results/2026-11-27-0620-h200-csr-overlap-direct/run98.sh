#!/usr/bin/env bash
# Run 98: csr_overlap copy=direct, with register_bound=on at ten blocks of 128 (directrb); the
# binary tcsparse16 adds the max-shared carveout to every batch kernel. Default suite fp64 / fp32.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run98.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; xz -dc .device-bin/tcsparse16.xz > $b/tcsparse16; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for bin in tcsparse tcsparse16; do
timeout 200 $b/$bin bench --suite default --methods cusparse,csr_overlap --precisions fp64,fp32 \
  --variant direct:copy=direct --variant directrb:copy=direct,register_bound=on \
  --plan-builds 1 --runs 20 --output $R/direct-$bin.jsonl > $R/direct-$bin.txt 2>&1
echo "bench $bin rc $? [$SECONDS s]"
done
python3 - $R/direct-tcsparse.jsonl $R/direct-tcsparse16.jsonl <<'PY'
import json, sys, math, collections
t = collections.defaultdict(dict)
for tag, path in zip(["8", "16"], sys.argv[1:]):
    for line in open(path):
        r = json.loads(line)
        if not r.get("check_passed"): print("CHECK FAILED", r["matrix"], r["method"], r.get("variant")); continue
        label = r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else "") + tag
        t[(r["matrix"][:20], r["precision"], r["nnz"])][label] = r["median_ms"]
        if r["method"] == "cusparse": t[(r["matrix"][:20], r["precision"], r["nnz"])]["cusparse"+tag] = r["median_ms"]
labels = ["csr_overlap8", "csr_overlap[direct]8", "csr_overlap[directrb]8", "csr_overlap[direct]16", "csr_overlap[directrb]16"]
print("matrix precision | speedup over cusparse of the same run: default, direct, direct rb10, then with the max-shared carveout: direct, direct rb10")
agg = collections.defaultdict(list)
for k, v in sorted(t.items(), key=lambda kv: (kv[0][1], -kv[0][2])):
    sp = [v["cusparse" + l[-1:] if not l.endswith("16") else "cusparse16"] / v[l] if l in v else float("nan") for l in labels]
    print(*k[:2], "|", " ".join("%.3f" % x for x in sp))
    for l, x in zip(labels, sp):
        if x == x: agg[(k[1], "large" if k[2] >= 10_000_000 else "small", l)].append(x)
for key, xs in sorted(agg.items()):
    print(*key, "geomean %.3f min %.3f" % (math.exp(sum(map(math.log, xs)) / len(xs)), min(xs)))
PY
gzip -f $R/*.jsonl

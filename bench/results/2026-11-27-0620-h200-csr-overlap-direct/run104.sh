#!/usr/bin/env bash
# Run 104: copy=direct with the next batch's first round of loads issued before this batch's row
# sums (tcsparse_pf) against the committed a4a63df (tcsparse_base), default suite fp64 / fp32 /
# fp16, alternated twice.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run104.log) 2>&1
b=/tmp/bin; mkdir -p $b
for n in tcsparse_base tcsparse_pf; do xz -dc .device-bin/$n.xz > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for round in 1 2; do for bin in tcsparse_base tcsparse_pf; do
timeout 100 $b/$bin bench --suite default --methods cusparse,csr_overlap --precisions fp64,fp32,fp16 \
  --plan-builds 1 --runs 20 --output $R/$bin-$round.jsonl > /dev/null 2>&1
echo "bench $bin $round rc $? [$SECONDS s]"
done; done
python3 - $R <<'PY'
import json, sys, math, collections, os
t = collections.defaultdict(dict)
for bin in ["tcsparse_base", "tcsparse_pf"]:
    for rnd in ["1", "2"]:
        for line in open(os.path.join(sys.argv[1], f"{bin}-{rnd}.jsonl")):
            r = json.loads(line)
            if not r.get("check_passed"): print("CHECK FAILED", bin, r["matrix"], r["method"]); continue
            t[(r["matrix"][:20], r["precision"], r["nnz"])][(r["method"], bin, rnd)] = (r["median_ms"], r.get("bandwidth_share"))
agg = collections.defaultdict(list)
print("matrix precision | over cusparse of the same run: base 1, prefetch 1, base 2, prefetch 2 | bandwidth share base, prefetch (round 2)")
for k, v in sorted(t.items(), key=lambda kv: (kv[0][1], -kv[0][2])):
    sp = []
    for rnd in ["1", "2"]:
        for bin in ["tcsparse_base", "tcsparse_pf"]:
            x = v[("cusparse", bin, rnd)][0] / v[("csr_overlap", bin, rnd)][0]; sp.append(x)
            agg[(k[1], "large" if k[2] >= 10_000_000 else "small", bin)].append(x)
    print(*k[:2], "|", " ".join("%.3f" % x for x in sp), "| %.3f %.3f" % (v[("csr_overlap", "tcsparse_base", "2")][1], v[("csr_overlap", "tcsparse_pf", "2")][1]))
for key, xs in sorted(agg.items()):
    print(*key, "geomean %.3f min %.3f" % (math.exp(sum(map(math.log, xs)) / len(xs)), min(xs)))
PY
gzip -f $R/*.jsonl

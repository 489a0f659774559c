#!/usr/bin/env bash
# Run 407: hbp's groups kernel drawing its next ticket before it walks the current run (the
# atomic's round trip behind the walk). The HBP GPU tests first; then the whole hbp suite, the
# previous binary (tcsparse_old: 4c4dca8) and the new one alternating, with cuSPARSE, fp64 and
# fp16, two passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run407.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
timeout 200 $b/tcsparse_gpu_tests --gtest_brief=1 --gtest_filter='HbpGpu.*:*Hbp*Conformance*:*Conformance*hbp*' > $R/run407-gpu-tests.txt 2>&1
echo "tests rc $? [$SECONDS s]"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" $R/run407-gpu-tests.txt | sort | uniq -c
for pass in 1 2; do
  for bin in tcsparse_old tcsparse; do
    M=hbp,cusparse
    timeout 140 $b/$bin bench --suite hbp --matrix-dir .mx --methods $M --precisions fp64,fp16 --runs 20 \
      --plan-builds 1 --output $R/run407-$bin-$pass.jsonl > /dev/null 2>&1
    echo "$bin pass $pass rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, statistics, collections, math
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/run407-tcsparse*.jsonl")):
    b = "old" if "tcsparse_old" in f else "new"
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        m = r["method"]; lab = b if m == "hbp" else m
        d = r.get("details", {})
        t[(r["matrix"], r["precision"])][lab].append((r["median_ms"] * 1e3, d.get("kernel", ""), d.get("cols", r.get("cols", 0))))
geo = collections.defaultdict(list)
for k, by in sorted(t.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    med = {lab: statistics.median(x[0] for x in xs) for lab, xs in by.items()}
    print(f"{k[1]} {k[0]:22s} cusparse {med['cusparse']:8.1f} old {med['old']:8.1f} new {med['new']:8.1f}  new/old {med['old']/med['new']:.3f}  new/cusparse {med['cusparse']/med['new']:.3f} ({by['new'][0][1]})")
    geo[(k[1], "new over old")].append(med["old"] / med["new"])
    geo[(k[1], "old over cusparse")].append(med["cusparse"] / med["old"])
    geo[(k[1], "new over cusparse")].append(med["cusparse"] / med["new"])
for (p, lab), v in sorted(geo.items()):
    print(p, lab, "geomean", round(math.exp(sum(map(math.log, v)) / len(v)), 3), "min", round(min(v), 3), "max", round(max(v), 3), len(v))
PY
cd $R && gzip *.jsonl && echo "[$SECONDS s]"

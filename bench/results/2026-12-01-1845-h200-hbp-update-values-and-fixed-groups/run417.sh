#!/usr/bin/env bash
# Run 417: the groups kernel in two instantiations, with fixed rounds of tickets (the round counter
# held across the walk) and without (as before the fixed rounds), both at a cap of 64 registers;
# fixed_group_share=auto (about 0.4 of the groups where x is one column block). The GPU tests of
# HBP, the conformance suite and the automatic choice (16 shards); memcheck of the fixed rounds'
# tests; then the hbp suite (auto, fixed_group_share=0, cuSPARSE) and the default suite (auto, 0),
# fp64 and fp16, one pass each.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run417.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_brief=1 \
    --gtest_filter='*Hbp*:*hbp*:*Conformance*:*AutoPlan*:*AutoChoice*' > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo "[$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
(cd $R && cat tests-*.txt | gzip > run417-gpu-tests.txt.gz && rm tests-*.txt)
timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 $b/tcsparse_gpu_tests --gtest_brief=1 \
  --gtest_filter='HbpGpu.AutoHandsOut*:HbpGpu.RepeatedApplies*' > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)|FAILED  \]" $R/memcheck.txt | head
timeout 90 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp,cusparse --precisions fp64,fp16 \
  --runs 20 --plan-builds 1 --variant f0:fixed_group_share=0 --output $R/run417-hbp-1.jsonl > $R/bench-hbp-1.txt 2>&1
echo "hbp suite rc $? [$SECONDS s]"; tail -1 $R/bench-hbp-1.txt
timeout 40 $b/tcsparse bench --suite default --matrix-dir .mx --methods hbp,cusparse --precisions fp64,fp16 \
  --runs 20 --plan-builds 1 --variant f0:fixed_group_share=0 --output $R/run417-default-1.jsonl > $R/bench-default-1.txt 2>&1
echo "default suite rc $? [$SECONDS s]"; tail -1 $R/bench-default-1.txt
python3 - $R <<'PY'
import json, sys, glob, statistics, collections, math
for suite in ("hbp", "default"):
    t = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in sorted(glob.glob(f"{sys.argv[1]}/run417-{suite}-*.jsonl")):
        for l in open(f):
            r = json.loads(l)
            if "median_ms" not in r: continue
            d = r.get("details", {})
            t[(r["precision"], r["matrix"])][r.get("variant") or r["method"]].append(
                (r["median_ms"] * 1e3, d.get("kernel", ""), d.get("fixed_group_share", "-"), r["nnz"], r["cols"]))
    geo = collections.defaultdict(list)
    for k, by in sorted(t.items()):
        med = {lab: statistics.median(x[0] for x in xs) for lab, xs in by.items()}
        kern, share, nnz, cols = by["hbp"][0][1:]
        print(suite, k[0], f"{k[1]:22s} {kern:6s} share {share}", f"auto {med['hbp']:8.1f} f0 {med['f0']:8.1f} cusparse {med['cusparse']:8.1f}",
              f"auto/f0 {med['f0']/med['hbp']:.3f} auto/cusparse {med['cusparse']/med['hbp']:.3f} f0/cusparse {med['cusparse']/med['f0']:.3f}")
        geo[(k[0], "auto over f0")].append(med["f0"] / med["hbp"])
        geo[(k[0], "auto over cusparse")].append(med["cusparse"] / med["hbp"])
        geo[(k[0], "f0 over cusparse")].append(med["cusparse"] / med["f0"])
        if cols >= 8_000_000:
            geo[(k[0], "auto over cusparse, >= 8 M columns")].append(med["cusparse"] / med["hbp"])
    for (p, lab), v in sorted(geo.items()):
        print(suite, p, lab, "geomean", round(math.exp(sum(map(math.log, v)) / len(v)), 3), "min", round(min(v), 3), "max", round(max(v), 3), len(v))
PY
cd $R && gzip -f *.jsonl && echo "[$SECONDS s]"
cd $OUT && tar cf run417.tar r && rm -rf r

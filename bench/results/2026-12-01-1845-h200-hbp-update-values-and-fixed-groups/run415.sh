#!/usr/bin/env bash
# Run 415: fixed_group_share=auto (0.4 of the groups handed out at launch where x is one column
# block, else 0). The GPU tests over HBP, csr_overlap, the plan builds, the device algorithms, the
# conformance suite and the automatic choice (16 shards); memcheck of the new test and the
# repeated applies; then the hbp suite (hbp auto against fixed_group_share=0 and cuSPARSE) and the
# default suite (hbp auto against 0), fp64 and fp16, two passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run415.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 240 $b/tcsparse_gpu_tests --gtest_brief=1 \
    --gtest_filter='*Hbp*:*hbp*:CsrOverlap*:CsrFullOverlap*:DeviceAlgorithms*:PlanBuild*:*Conformance*:*AutoPlan*:*AutoChoice*' \
    > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo "[$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
(cd $R && cat tests-*.txt | gzip > run415-gpu-tests.txt.gz && rm tests-*.txt)
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $b/tcsparse_gpu_tests --gtest_brief=1 \
  --gtest_filter='HbpGpu.AutoHandsOut*:HbpGpu.RepeatedApplies*' > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)|FAILED  \]" $R/memcheck.txt | head
for pass in 1 2; do
  timeout 110 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp,cusparse --precisions fp64,fp16 \
    --runs 20 --plan-builds 1 --variant f0:fixed_group_share=0 --output $R/run415-hbp-$pass.jsonl > $R/bench-hbp-$pass.txt 2>&1
  echo "hbp suite pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-hbp-$pass.txt
  timeout 60 $b/tcsparse bench --suite default --matrix-dir .mx --methods hbp,cusparse --precisions fp64,fp16 \
    --runs 20 --plan-builds 1 --variant f0:fixed_group_share=0 --output $R/run415-default-$pass.jsonl > $R/bench-default-$pass.txt 2>&1
  echo "default suite pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-default-$pass.txt
done
python3 - $R <<'PY'
import json, sys, glob, statistics, collections, math
for suite in ("hbp", "default"):
    t = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in sorted(glob.glob(f"{sys.argv[1]}/run415-{suite}-*.jsonl")):
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

#!/usr/bin/env bash
# Run 292: the uploaded CSR's columns renumbered in place (no copy of the columns), the build's
# column_counts and column_order steps timed apart; the hbp suite's builds (median of 3) with
# column_order=auto against caller, hbp alone, fp64 and fp16; the HBP and plan-build GPU tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run292.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
timeout 300 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 \
  --plan-builds 3 --runs 20 --variant caller:column_order=caller --output $R/run292-hbp-builds.jsonl > /dev/null 2>&1; echo "bench rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob
R = sys.argv[1]
rec = [json.loads(l) for f in glob.glob(f"{R}/run292-*.jsonl") for l in open(f)]
t = {(r["matrix"], r["precision"], r.get("variant") or "auto"): r for r in rec if "median_ms" in r}
print("checks failed:", [k for k, r in t.items() if not r.get("check_passed", True)])
for p in ("fp64", "fp16"):
    for m in sorted({k[0] for k in t if k[1] == p}):
        a, c = t[(m, p, "auto")], t[(m, p, "caller")]
        ph = a["details"].get("plan_phases_ms", {})
        print(f"{m[:22]:22s} {p} nnz {a['nnz']:>10} {a['details'].get('column_order'):10s} spmv {a['median_ms']*1e3:8.1f} / {c['median_ms']*1e3:8.1f} us  build {a['device_preprocess_ms']:6.2f} / {c['device_preprocess_ms']:6.2f} ms = {a['device_preprocess_ms']/a['median_ms']:5.1f} / {c['device_preprocess_ms']/c['median_ms']:5.1f} SpMVs  counts {ph.get('column_counts', 0):.2f} order {ph.get('column_order', 0):.2f} first step {ph.get('row_segments', 0):.2f}")
PY
echo "[$SECONDS s] tests"
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*:PlanBuild.*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/run292-gpu-tests.txt; rm $R/tests-*.txt
cd $R && gzip *.jsonl run292-gpu-tests.txt && tar czf $OUT/run292.tgz run292* && cp run292.log $OUT/
echo "[$SECONDS s]"

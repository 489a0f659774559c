#!/usr/bin/env bash
# Run 113: the measured choice of "auto" (PlanOptions::auto_measure). GPU tests (auto, conformance
# of every method, apply promises, SpMM layouts, plans from device CSR), memcheck of the auto
# tests, then the default suite with every SpMV method and auto (measured), and auto rule-only.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run113.log) 2>&1
b=/tmp/bin; mkdir -p $b
for n in tcsparse tcsparse_gpu_tests; do xz -dc .device-bin/$n.xz > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter='*AutoPlan*:*Conformance*:*ApplyPromises*:*SpmmLayouts*:*FromDevice*:*DeviceCsr*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 90 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='AutoPlan.*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $R/memcheck.txt
SECONDS=0
timeout 150 $b/tcsparse bench --suite default --methods cusparse,cusparse_alg2,dasp,csr_overlap,hbp,auto \
  --precisions fp64,fp32,fp16,bf16 --runs 10 --plan-builds 1 --output $R/default-all.jsonl > $R/default-all.txt 2>&1
echo "default all methods rc $? [$SECONDS s]"
SECONDS=0
timeout 60 $b/tcsparse bench --suite default --methods auto --auto-measure false \
  --precisions fp64,fp32,fp16,bf16 --runs 10 --plan-builds 1 --output $R/default-auto-rule.jsonl > /dev/null 2>&1
echo "default auto rule-only rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, os, collections
R = sys.argv[1]
def load(name):
    p = os.path.join(R, name)
    return [json.loads(l) for l in open(p)] if os.path.exists(p) else []
rows = collections.defaultdict(dict)
for r in load("default-all.jsonl"):
    if not r.get("check_passed"): print("CHECK FAILED", r["matrix"], r["method"], r["precision"])
    rows[(r["precision"], r["matrix"])][r["method"]] = r
for r in load("default-auto-rule.jsonl"):
    rows[(r["precision"], r["matrix"])]["auto_rule"] = r
print("precision matrix | auto chose | auto/best | auto/cusparse | rule chose | rule/best | build ms auto / rule")
below = 0
for (p, m), t in sorted(rows.items()):
    timed = {k: v["median_ms"] for k, v in t.items() if k not in ("auto", "auto_rule") and v.get("median_ms")}
    if "auto" not in t or not timed: continue
    best = min(timed.values()); a = t["auto"]; ru = t.get("auto_rule")
    cu = timed.get("cusparse")
    if cu and cu / a["median_ms"] < 0.95: below += 1
    print(p, m[:24], "|", a["details"]["auto"]["chosen"], "| %.3f" % (a["median_ms"] / best), "| %.3f" % (cu / a["median_ms"] if cu else 0),
          "|", ru["details"]["auto"]["chosen"] if ru else "-", "| %.3f" % (ru["median_ms"] / best if ru else 0),
          "| %.2f / %.2f" % (a["plan_build_ms"], ru["plan_build_ms"] if ru else 0))
print("auto below 0.95x cusparse:", below)
PY
gzip -f $R/*.jsonl

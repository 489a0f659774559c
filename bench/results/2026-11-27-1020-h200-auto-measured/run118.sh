#!/usr/bin/env bash
# Run 118: the measured "auto" with a shorter warm-up (0.25 ms) and rounds (0.05 ms) and one
# StreamGate per plan: its build time against the rule-only build (default suite, DLMC rn50 at
# 90 %), with each trial's wall time in the records; every GPU test that names auto, and memcheck
# of the auto plan tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run118.log) 2>&1
b=/tmp/bin; mkdir -p $b
for n in tcsparse tcsparse_gpu_tests; do xz -dc .device-bin/$n.xz > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter='*AutoPlan*:*auto*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "auto tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 120 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='AutoPlan.*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -2 $R/memcheck.txt
for mode in true false; do
  SECONDS=0
  timeout 100 $b/tcsparse bench --suite default --methods cusparse,auto --auto-measure $mode \
    --precisions fp64,fp32,fp16,bf16 --runs 10 --plan-builds 3 --output $R/default-measure-$mode.jsonl > /dev/null 2>&1
  echo "default auto-measure $mode rc $? [$SECONDS s]"
  SECONDS=0
  timeout 100 $b/tcsparse bench .mx/rn50 --spmm-n 16,256 --methods cusparse,auto --auto-measure $mode \
    --precisions fp32,fp16 --runs 10 --plan-builds 3 --output $R/rn50-measure-$mode.jsonl > /dev/null 2>&1
  echo "rn50 auto-measure $mode rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, os, statistics, collections
R = sys.argv[1]
def load(n): return [json.loads(l) for l in open(os.path.join(R, n))]
for suite in ("default", "rn50"):
    k = lambda r: (r["operation"], r["precision"], r["matrix"], r.get("n", 1))
    meas = {k(r): r for r in load(f"{suite}-measure-true.jsonl") if r["method"] == "auto"}
    rule = {k(r): r for r in load(f"{suite}-measure-false.jsonl") if r["method"] == "auto"}
    extra, ratio, trial, builds, cases = [], [], [], [], 0
    for key, a in meas.items():
        if key not in rule: continue
        cases += 1
        extra.append((a["plan_build_ms"] - rule[key]["plan_build_ms"]) / a["median_ms"])
        ratio.append(a["plan_build_ms"] / rule[key]["plan_build_ms"])
        m = a["details"]["auto"].get("measured", [])
        trial.append(sum(t.get("trial_ms", 0) for t in m)); builds.append(sum(t.get("build_ms", 0) for t in m))
    q = lambda v, p: sorted(v)[int(p * (len(v) - 1))]
    print(suite, cases, "build measured/rule median %.2f p90 %.2f; extra apply-times median %.0f p90 %.0f; trials ms median %.2f p90 %.2f; trial builds ms median %.2f" %
          (statistics.median(ratio), q(ratio, .9), statistics.median(extra), q(extra, .9), statistics.median(trial), q(trial, .9), statistics.median(builds)))
PY
gzip -f $R/*.jsonl
tar -C $OUT -czf $OUT/r.tar.gz r && rm -rf $R

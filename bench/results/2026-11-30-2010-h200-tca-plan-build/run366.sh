#!/usr/bin/env bash
# Run 366: the final build (47cb391): 1. the tca, AutoPlan and conformance GPU tests (16 shards),
# with the new TcaBuildThatRunsOutOfDeviceMemoryThrowsAndLeaksNothing; 2. memcheck on that test;
# 3. plan builds: the gather plans of the four LLM shapes at 90 %, n = 16, column-major (the
# builder's lookups and branch-free choice), and DLMC at 90 %, n = 256, from host CSR.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run366.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='SpmmLayouts.Tca*:*Conformance*tca*:AutoPlan.*:*ApplyPromises*tca*:*FromDeviceCsr*tca*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 240 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h "OK \] SpmmLayouts.TcaBuildThatRunsOutOfDeviceMemory" $R/tests-*.txt
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt | gzip -c > $OUT/run366-gpu-tests.txt.gz
SECONDS=0
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaBuildThatRunsOutOfDeviceMemory*' --gtest_brief=1 > $OUT/run366-memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/run366-memcheck.txt | tail -3
L=""; for s in 4096x4096 11008x4096 4096x11008 14336x4096; do L="$L llm:$s:s0.90:uniform"; done
SECONDS=0
timeout 60 $b/tcsparse bench $L --methods tca --precisions fp16 --spmm-n 16 --layout column_major \
  --runs 10 --plan-builds 3 --output $R/llmbuild.jsonl > $R/llmbuild.txt 2>&1
echo "llm build rc $? [$SECONDS s]"
timeout 60 $b/tcsparse bench .mx/dlmc --methods tca --precisions fp16 --spmm-n 256 \
  --runs 10 --plan-builds 5 --output $R/dlmc.jsonl > $R/dlmc.txt 2>&1
echo "dlmc rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, statistics
R = sys.argv[1]
for l in open(f"{R}/llmbuild.jsonl"):
    r = json.loads(l)
    p = r["details"].get("plan_phases_ms", {})
    print(f"{r['matrix']} {r['details'].get('kernel')} build {r['plan_build_ms']:.2f} ms (builds {r['details'].get('plan_builds_ms')}) " + ", ".join(f"{k} {x:.3f}" for k, x in p.items()))
rs = [json.loads(l) for l in open(f"{R}/dlmc.jsonl")]
print(f"DLMC: build ms median {statistics.median(r['plan_build_ms'] for r in rs):.4f}, SpMM-times median "
      f"{statistics.median(r['plan_build_ms'] / r['median_ms'] for r in rs):.1f} (max {max(r['plan_build_ms'] / r['median_ms'] for r in rs):.1f}), SpMM us median {statistics.median(r['median_ms'] * 1000 for r in rs):.1f}; failed checks {sum(not r.get('check_passed', True) for r in rs)}")
PY
cd $R && tar czf $OUT/run366-records.tar.gz *.jsonl *.txt

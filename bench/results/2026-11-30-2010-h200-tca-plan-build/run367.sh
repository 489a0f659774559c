#!/usr/bin/env bash
# Run 367: the gather layout builder's lookups, branch-free choice and no zero-fill (7b..): 1. the
# tca, AutoPlan and conformance GPU tests (16 shards); 2. gather_build_probe (build_gather_layout
# alone on 14336 x 4096 and 4096 x 11008 at 90 %, n = 16; a program of this run, not of the
# repository) at 1, 4, 8 and 16 OpenMP threads; 3. the gather plans' builds of the four LLM shapes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run367.log) 2>&1
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
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt | gzip -c > $OUT/run367-gpu-tests.txt.gz
for t in 1 4 8 16; do echo "threads $t"; OMP_NUM_THREADS=$t timeout 60 $b/gather_build_probe; done
L=""; for s in 4096x4096 11008x4096 4096x11008 14336x4096; do L="$L llm:$s:s0.90:uniform"; done
timeout 60 $b/tcsparse bench $L --methods tca --precisions fp16 --spmm-n 16 --layout column_major \
  --runs 10 --plan-builds 5 --output $R/llmbuild.jsonl > $R/llmbuild.txt 2>&1
echo "llm build rc $?"
python3 - $R <<'PY'
import json, sys
for l in open(sys.argv[1] + "/llmbuild.jsonl"):
    r = json.loads(l)
    p = r["details"].get("plan_phases_ms", {})
    print(f"{r['matrix']} {r['details'].get('kernel')} build {r['plan_build_ms']:.2f} ms (builds {[round(x, 1) for x in r['details'].get('plan_builds_ms', [])]}) " + ", ".join(f"{k} {x:.3f}" for k, x in p.items()))
PY
cd $R && tar czf $OUT/run367-records.tar.gz *.jsonl *.txt

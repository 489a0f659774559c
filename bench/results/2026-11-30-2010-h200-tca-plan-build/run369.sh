#!/usr/bin/env bash
# Run 369: kernel=auto at up to 16 columns uploads the CSR as a temporary of the pool too (tiles
# counted on the GPU; rows keeps a device-to-device copy). 1. the tca, AutoPlan and conformance
# GPU tests (16 shards), the out-of-memory test now with auto's two outcomes; 2. memcheck of that
# test; 3. decode plan builds (auto, n = 16, 5 builds) of `new` against `base` (f451a1f),
# alternating, two passes: the LLM weights at 70 % (tiles) and 4096 x 4096 at 90 / 95 %.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run369.log) 2>&1
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
cat $R/tests-*.txt | gzip -c > $OUT/run369-gpu-tests.txt.gz
SECONDS=0
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaBuildThatRunsOutOfDeviceMemory*' --gtest_brief=1 > $OUT/run369-memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/run369-memcheck.txt | tail -3
L=""; for s in 4096x4096 11008x4096 4096x11008 14336x4096; do L="$L llm:$s:s0.70:uniform"; done
L="$L llm:4096x4096:s0.90:uniform llm:4096x4096:s0.95:uniform"
for pass in 1 2; do for v in base new; do for layout in row_major column_major; do
  timeout 60 $b/tcsparse_$v bench $L --methods tca --precisions fp16 --spmm-n 16 --layout $layout \
    --runs 10 --plan-builds 5 --output $R/build-$v-$layout-$pass.jsonl > $R/build-$v-$layout-$pass.txt 2>&1
  echo "build $v $layout $pass rc $?"
done; done; done
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
t = collections.defaultdict(list); ph = {}
for f in glob.glob(sys.argv[1] + "/build-*.jsonl"):
    _, v, layout, _ = f.split("/")[-1][:-6].split("-")
    for l in open(f):
        r = json.loads(l)
        if not r.get("check_passed", True): print("CHECK FAILED", f, r["matrix"])
        k = (r["matrix"], layout, v)
        t[k].append(r["plan_build_ms"]); ph[k] = (r["details"].get("kernel"), r["details"].get("plan_phases_ms"))
for k in sorted(t):
    if k[2] != "new": continue
    b = statistics.median(t[(k[0], k[1], "base")]); n = statistics.median(t[k])
    print(f"{k[0]:30s} {k[1]:12s} {ph[k][0]:6s} build base {b:6.2f} new {n:6.2f} ms  " +
          ", ".join(f"{p} {x:.3f}" for p, x in (ph[k][1] or {}).items()))
PY
cd $R && tar czf $OUT/run369-records.tar.gz *.jsonl *.txt

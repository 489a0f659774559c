#!/usr/bin/env bash
# Run 375: (1) tca: a large GPU tiles build keeps its layout and split-K buffer out of the pool
# (detail::is_small_build), after run 374 found run 372's trim did not help (the plan's arrays sit
# in the 64 MiB the pool mapped for the build); GPU tests of PlanBuild, tca, AutoPlan, conformance
# and hbp, 16 shards, and memcheck; (2) where the rajat01 replica's hbp build spends the extra
# ~0.09 ms in fp64 that fp16 does not (run 374, phases row_segments and segments): both precision
# orders, layout_memory auto / pool / allocate, 7 builds each; against run 374's binary
# (tcsparse_374: the three row scans of step 1 apart, not yet one scan of three).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run375.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='PlanBuild.*:SpmmLayouts.Tca*:*Conformance*tca*:*Conformance*hbp*:AutoPlan.*:*ApplyPromises*:*FromDeviceCsr*:HbpGpuBuild.*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h "OK \] PlanBuild" $R/tests-*.txt
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt | gzip -c > $OUT/run375-gpu-tests.txt.gz
timeout 200 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='PlanBuild.Tca*:SpmmLayouts.TcaBuildThatRunsOutOfDeviceMemory*' > $OUT/run375-memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $OUT/run375-memcheck.txt
M=gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=10
for run in 1:fp64,fp16 2:fp16,fp64 3:fp64,fp16; do
  order=${run#*:}
  for bin in tcsparse tcsparse_374; do
    timeout 120 $b/$bin bench $M --methods hbp --precisions $order --plan-builds 7 \
      --variant pool:layout_memory=pool --variant alloc:layout_memory=allocate \
      --output $R/replica-${run%%:*}-$order-$bin.jsonl > /dev/null 2>&1
    echo "replica $run $bin rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/replica-*.jsonl")):
    print(f.rsplit("/", 1)[1])
    for l in open(f):
        r = json.loads(l)
        if r.get("method") != "hbp": continue
        d = r["details"]
        ph = {k: round(v, 3) for k, v in d.get("plan_phases_ms", {}).items()}
        builds = [round(x, 3) for x in d.get("plan_builds_ms", [])]
        print(f"  {r.get('variant','') or 'auto':6s} {r['precision']} spmv {r['median_ms']*1e3:6.1f} us  "
              f"device build {r['device_preprocess_ms']:.3f} ms = {r['device_preprocess_ms']/r['median_ms']:.1f} x  "
              f"memory {d.get('layout_memory')}  plan builds {builds}")
        print(f"         {ph}")
PY
cd $R && tar czf $OUT/run375-records.tar.gz replica-*.jsonl
echo "done [$SECONDS s]"

#!/usr/bin/env bash
# Run 201: tca plans from CSR already on the GPU (tca::make_spmm_from_device; before, the plan
# downloaded the CSR and built as from the host). 1. GPU tests: tca's (the new
# SpmmLayouts.TcaPlansFromDeviceCsrAreThePlansFromHostCsrAndOwnWhatTheyRead among them) and the
# conformance, promise and from-device cases of tca (16 shards); 2. memcheck of the new test;
# 3. plan builds from host CSR and from device CSR on the 8 LLM weights (4 shapes, 70 and 90 %),
# fp16, n = 16 and 256, row-major, 3 builds each.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run201.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='SpmmLayouts.Tca*:*FromDevice*tca*:*Conformance*tca*:*ApplyPromises*tca*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 240 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaPlansFromDeviceCsr*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.70 0.90; do W="$W llm:$shape:s$s:uniform"; done
done
SECONDS=0
for from in host device; do
  flag=""; [ $from = device ] && flag="--from-device"
  timeout 150 $b/tcsparse bench $W --methods tca --precisions fp16 --spmm-n 16,256 --layout row_major \
    --runs 20 --plan-builds 3 $flag --output $R/llm-$from.jsonl > $R/llm-$from.txt 2>&1
  echo "llm from $from rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys
R = sys.argv[1]
t = {}
for origin in ("host", "device"):
    for line in open(f"{R}/llm-{origin}.jsonl"):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", origin, r["matrix"], r["n"])
        t[(r["matrix"], r["n"], origin)] = r
print("matrix n: kernel; plan build from host -> from device (ms, SpMM-times); SpMM ms host / device plan")
for (m, n, origin), r in sorted(t.items()):
    if origin != "host": continue
    d = t.get((m, n, "device"))
    if not d: continue
    print(f"{m:28s} {n:4d} {r['details'].get('kernel')}/{d['details'].get('kernel')} "
          f"{r['plan_build_ms']:.2f} -> {d['plan_build_ms']:.2f} ms "
          f"({r['plan_build_ms'] / r['median_ms']:.0f} -> {d['plan_build_ms'] / d['median_ms']:.0f}); "
          f"{r['median_ms']:.4f} / {d['median_ms']:.4f}")
PY
cd $OUT && tar czf r.tgz r && rm -rf r

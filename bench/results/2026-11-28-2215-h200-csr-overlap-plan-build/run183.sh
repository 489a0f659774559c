#!/usr/bin/env bash
# Run 183: the code as committed (no time points): the counting pass in one kernel on a side
# stream beside the check, its last block's scan not inlined (64 registers, four blocks an SM),
# the scatter loading each thread's long-row offsets once. 1. GPU tests of csr_overlap,
# csr_full_overlap, the device CSR check and plans from device CSR, their conformance cases
# (16 shards); 2. memcheck and racecheck of the table tests; 3. plans from device CSR on the
# default suite, every precision, two rounds; 4. Nsight Compute's duration of each kernel of one
# build on pruned_16k and stencil2d_2000, bf16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run183.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*DeviceCsrView*:*FromDevice*:*from_device*:*CsrOverlap*:*csr_overlap*:*FullOverlap*:*full_overlap*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 330 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
T='*CsrOverlapGpuOnCatalogue.DeviceTableEqualsHostModel/*:CsrOverlapGpu.StatsDescribe*:CsrOverlapGpu.AutoTakes*:CsrOverlapGpu.APlanFromDeviceCsrBorrows*:CsrOverlapGpu.ARowLongerThanABlock*'
timeout 240 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter="$T" --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
timeout 200 compute-sanitizer --tool racecheck $b/tcsparse_gpu_tests --gtest_filter='*CsrOverlapGpuOnCatalogue.DeviceTableEqualsHostModel/*' --gtest_brief=1 > $R/racecheck.txt 2>&1
echo "racecheck rc $? [$SECONDS s]"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED" $R/racecheck.txt | tail -4
SECONDS=0
for round in 1 2; do
  timeout 150 $b/tcsparse bench --suite default --methods csr_overlap --precisions fp64,fp32,fp16,bf16 \
    --from-device --plan-builds 5 --runs 10 --output $R/from-device-$round.jsonl > /dev/null 2>&1
  echo "from-device round $round rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys
R = sys.argv[1]
for rnd in (1, 2):
    print(f"## round {rnd}: plans from device CSR, matrices of 1 M nonzeros or more (build / fastest apply)")
    worst = []
    for line in open(f"{R}/from-device-{rnd}.jsonl"):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", r["matrix"], r["precision"])
        if r["nnz"] < 1e6: continue
        t = r["plan_build_ms"] / r["median_ms"]
        worst.append((t, r["matrix"], r["precision"]))
        print(f"{r['matrix']:20s} {r['precision']:5s} {r['details'].get('partition','rows'):12s} build {r['plan_build_ms']:.3f} dev {r['device_preprocess_ms']:.3f} apply {r['median_ms']:.4f} ratio {t:.2f}")
    print("max", max(worst))
PY
for m in gen:pruned:rows=16384,cols=16384,sparsity=0.9,seed=9 gen:stencil2d:nx=2000,ny=2000,seed=1; do
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum \
    -k "regex:check_|classify|scatter_table" -c 12 \
    $b/tcsparse bench $m --methods csr_overlap --precisions bf16 --runs 1 --warmup-ms 0 \
    --from-device --plan-builds 1 --output /tmp/n.jsonl > $R/ncu-$(echo $m | cut -d: -f2).txt 2>&1
  echo "ncu $m rc $? [$SECONDS s]"
done
grep -h -E "void|duration" $R/ncu-*.txt | sed -e 's/(tcsparse::[^)]*)//g' -e 's/tcsparse:://g' | cut -c1-100 | tail -24
cd $OUT && tar czf r.tgz r && rm -rf r

#!/usr/bin/env bash
# Run 188: hbp plans from device CSR (make_spmv_from_device: the layout built on the GPU from the
# caller's arrays, no host round trip). 1. GPU tests: hbp, the conformance suite's plans from
# device CSR, update_values and device CSR checks, and DASP's (its view helper moved into
# DeviceCsr); 2. memcheck of the new hbp test; 3. the hbp suite from device CSR, every precision,
# three builds a case (the call carries rajat01.mtx.gz in .mx/suitesparse for the suite's circuit
# replica); 4. the same suite's fp64 from host CSR, for the build with its upload.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run188.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*hbp*:*Hbp*:*FromDeviceCsr*:*ApplyPromises*:*DeviceCsrView*:*Dasp*Device*:*dasp*device*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]|Failure$|Expected|Which is|exception" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='HbpGpu.APlanFromDeviceCsr*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
SECONDS=0
timeout 240 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp32,fp16,bf16 \
  --from-device --plan-builds 3 --runs 10 --output $R/hbp-from-device.jsonl > $R/hbp-from-device.txt 2>&1
echo "hbp from device rc $? [$SECONDS s]"
timeout 150 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64 \
  --plan-builds 3 --runs 10 --output $R/hbp-from-host.jsonl > $R/hbp-from-host.txt 2>&1
echo "hbp from host rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys
R = sys.argv[1]
host = {}
try:
    for l in open(f"{R}/hbp-from-host.jsonl"):
        r = json.loads(l); host[(r["matrix"], r["precision"])] = r
except FileNotFoundError:
    pass
print("matrix nnz precision | from device: build ms, device ms, SpMV ms, build / SpMV | from host: build ms, upload ms")
for l in open(f"{R}/hbp-from-device.jsonl"):
    r = json.loads(l)
    if not r.get("check_passed", True): print("CHECK FAILED", r["matrix"], r["precision"])
    h = host.get((r["matrix"], r["precision"]))
    hs = f"| {h['plan_build_ms']:.2f} {h['upload_ms']:.2f}" if h else ""
    print(f"{r['matrix']:20s} {r['nnz']:>10d} {r['precision']:5s} | {r['plan_build_ms']:.2f} {r['device_preprocess_ms']:.2f} {r['median_ms']:.4f} {r['plan_build_ms'] / r['median_ms']:.1f} {hs}")
PY
cd $OUT && tar czf r.tgz r && rm -rf r

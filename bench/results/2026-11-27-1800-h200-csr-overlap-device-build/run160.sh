#!/usr/bin/env bash
# Run 160: the review mend f47166b (classify_rows_kernel's group of 4 positions named). 1. GPU
# tests of the device CSR check, the plans from device CSR, csr_overlap and csr_full_overlap (8
# shards, every test's name in the output); 2. compute-sanitizer memcheck of the check's tests
# and of csr_overlap's plans from device CSR on the catalogue; 3. from-device builds, once.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run160.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/tcsparse_gpu_tests.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*DeviceCsrView*:*FromDevice*:*from_device*:*CsrOverlap*:*csr_overlap*:*FullOverlap*:*full_overlap*'
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 330 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]" $R/tests-*.txt | sort -u | head
grep -h -E "\[       OK \] .*(TablesOfMoreTiles|RowsOfZeroToTwo|EveryEntryOfALarge|RowPtrMustNotDecrease|AValidMatrixIsAccepted)" $R/tests-*.txt
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 240 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='DeviceCsrViewValidation.*:Catalogue/FromDeviceCsr.*csr_overlap*:*CsrOverlapGpuOnCatalogue.DeviceTableEqualsHostModel*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
SECONDS=0
timeout 100 $b/tcsparse bench --suite default --matrix-dir .mx --methods csr_overlap --precisions fp64,fp32,fp16,bf16 \
  --from-device --plan-builds 5 --runs 10 --output $R/from-device.jsonl > /dev/null 2>&1
echo "from-device rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, os, collections
worst = collections.defaultdict(float)
for line in open(os.path.join(sys.argv[1], "from-device.jsonl")):
    r = json.loads(line)
    if not r.get("check_passed"): print("CHECK FAILED", r["matrix"], r["precision"]); continue
    if r["nnz"] < 1_000_000: continue
    t = r["plan_build_ms"] / r["median_ms"]; worst[r["precision"]] = max(worst[r["precision"]], t)
    print(f'{r["matrix"][:18]:18s} {r["precision"]} {r["plan_build_ms"]:.3f} ms {t:.2f}')
for p, w in sorted(worst.items()): print(p, "worst SpMV-times %.2f" % w)
PY
gzip -f $R/*.jsonl $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

#!/usr/bin/env bash
# Run 176: long_row_threads (auto: 64 for 16-bit values). 1. GPU tests of csr_overlap,
# csr_full_overlap, the device CSR check and plans from device CSR, their conformance cases
# (16 shards); 2. memcheck and racecheck of the long-row block tests; 3. the default suite and
# the pruned LLM weights as SpMV against cuSPARSE, every precision, with blocks of 128 as a
# variant (the previous default); 4. plans from device CSR on the default suite.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run176.log) 2>&1
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
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.LongRowBlocks*:CsrOverlapGpu.OneWarpLongRow*:CsrOverlapGpu.LongRowPieces*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
timeout 200 compute-sanitizer --tool racecheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.OneWarpLongRow*:CsrOverlapGpu.LongRowBlocksAre*' --gtest_brief=1 > $R/racecheck.txt 2>&1
echo "racecheck rc $? [$SECONDS s]"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED" $R/racecheck.txt | tail -4
SECONDS=0
V="--variant t128:long_row_threads=128"
timeout 150 $b/tcsparse bench --suite default --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
  --runs 20 $V --output $R/default.jsonl > /dev/null 2>&1
echo "default rc $? [$SECONDS s]"
M=""
for w in 4096,4096,0.5,uniform 4096,4096,0.7,uniform 4096,4096,0.7,skewed 11008,4096,0.7,skewed 4096,11008,0.7,uniform 14336,4096,0.5,skewed 14336,4096,0.7,uniform; do
  IFS=, read r c sp pr <<< "$w"
  M="$M gen:llm:rows=$r,cols=$c,sparsity=$sp,profile=$pr,seed=1"
done
timeout 120 $b/tcsparse bench $M --methods cusparse,csr_overlap --precisions fp16,bf16 --runs 20 $V --output $R/llm.jsonl > /dev/null 2>&1
echo "llm rc $? [$SECONDS s]"
timeout 120 $b/tcsparse bench --suite default --methods csr_overlap --precisions fp64,fp32,fp16,bf16 \
  --from-device --plan-builds 5 --runs 10 --output $R/from-device.jsonl > /dev/null 2>&1
echo "from-device rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, os
R = sys.argv[1]
for f in ["default", "llm"]:
    t = {}
    for line in open(f"{R}/{f}.jsonl"):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", f, r["matrix"], r["precision"], r["method"], r.get("variant"))
        t[(r["matrix"], r["precision"], r["method"], r.get("variant", ""))] = r
    print("##", f, "speedup over cusparse: csr_overlap (partition, long-row threads) | blocks of 128")
    for (m, p, me, v), r in sorted(t.items()):
        if me != "csr_overlap" or v: continue
        c = t[(m, p, "cusparse", "")]["median_ms"]
        o = t.get((m, p, me, "t128"))
        d = r["details"]
        print(f'{m[:40]:40s} {p} {r["nnz"]:9d} {c/r["median_ms"]:.3f} ({d.get("partition")}, {d.get("long_row_threads", "-")}) | {c/o["median_ms"] if o else 0:.3f}  cus {c*1000:.1f}us')
print("## from device: build / apply")
for line in open(f"{R}/from-device.jsonl"):
    r = json.loads(line)
    if r["nnz"] < 1_000_000: continue
    print(f'{r["matrix"][:20]:20s} {r["precision"]} {r["plan_build_ms"]/r["median_ms"]:.2f} build {r["plan_build_ms"]*1000:.0f}us apply {r["median_ms"]*1000:.1f}us {r["details"].get("partition")}')
PY
gzip -f $R/*.jsonl $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

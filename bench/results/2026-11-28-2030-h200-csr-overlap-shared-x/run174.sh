#!/usr/bin/env bash
# Run 174: csr_overlap long_row_x (x staged in shared memory for the long-row kernel).
# 1. GPU tests of csr_overlap, csr_full_overlap, the device CSR check, plans from device CSR and
#    the conformance suite (16 shards); 2. memcheck and racecheck of the long_row_x tests; 3. the
#    default suite, every precision, auto against the variants global and shared; 4. pruned LLM
#    weights as SpMV (decode at batch 1), the same variants; 5. the small suite, fp16 and fp64.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run174.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*DeviceCsrView*:*FromDevice*:*from_device*:*CsrOverlap*:*csr_overlap*:*FullOverlap*:*full_overlap*:*Conformance*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.LongRowX*:CsrOverlapGpu.LongRowPieces*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
timeout 200 compute-sanitizer --tool racecheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.LongRowXStaged*' --gtest_brief=1 > $R/racecheck.txt 2>&1
echo "racecheck rc $? [$SECONDS s]"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED" $R/racecheck.txt | tail -4
V="--variant global:long_row_x=global --variant shared:long_row_x=shared"
SECONDS=0
timeout 240 $b/tcsparse bench --suite default --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
  --runs 20 $V --output $R/default.jsonl > /dev/null 2>&1
echo "default rc $? [$SECONDS s]"
LLM=""
for w in 4096,4096,0.5,uniform 4096,4096,0.7,uniform 4096,4096,0.7,skewed 11008,4096,0.7,skewed 4096,11008,0.7,uniform 14336,4096,0.5,skewed 14336,4096,0.7,uniform; do
  IFS=, read r c sp pr <<< "$w"
  LLM="$LLM gen:llm:rows=$r,cols=$c,sparsity=$sp,profile=$pr,seed=1"
done
timeout 150 $b/tcsparse bench $LLM --methods cusparse,csr_overlap --precisions fp16,bf16,fp32 --runs 20 $V --output $R/llm.jsonl > /dev/null 2>&1
echo "llm rc $? [$SECONDS s]"
timeout 100 $b/tcsparse bench --suite small --methods cusparse,csr_overlap --precisions fp16,fp64 --runs 20 $V --output $R/small.jsonl > /dev/null 2>&1
echo "small rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, os, glob
R = sys.argv[1]
for f in ["default", "llm", "small"]:
    p = f"{R}/{f}.jsonl"
    if not os.path.exists(p): continue
    t = {}
    for line in open(p):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", f, r["matrix"], r["precision"], r["method"], r.get("variant"))
        t[(r["matrix"], r["precision"], r["method"], r.get("variant", ""))] = r
    print("##", f, "speedup over cusparse: auto (x, partition) | global | shared")
    for (m, p_, me, v), r in sorted(t.items()):
        if me != "csr_overlap" or v: continue
        c = t[(m, p_, "cusparse", "")]["median_ms"]
        g = t.get((m, p_, me, "global")); s = t.get((m, p_, me, "shared"))
        d = r["details"]
        print(f'{m[:34]:34s} {p_} {r["nnz"]:9d} {c/r["median_ms"]:.3f} ({d.get("long_row_x","-")}, {d.get("partition","?")}) | '
              f'{c/g["median_ms"] if g else 0:.3f} | {c/s["median_ms"] if s else 0:.3f}  cus {c*1000:.1f}us')
PY
gzip -f $R/*.jsonl $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

#!/usr/bin/env bash
# Run 114: the measured "auto" with gated trials (warm-up >= 1 ms, rounds >= 0.1 ms behind a
# StreamGate) and three trials (two besides cusparse). GPU tests, memcheck of the auto tests, the
# default suite with every SpMV method, auto and auto rule-only, and the spmm suite's generated LLM
# weights at n = 16 and 256 in fp16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run114.log) 2>&1
b=/tmp/bin; mkdir -p $b
for n in tcsparse tcsparse_gpu_tests; do xz -dc .device-bin/$n.xz > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter='*AutoPlan*:*Conformance*:*ApplyPromises*:*SpmmLayouts*:*FromDevice*:*DeviceCsr*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 90 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='AutoPlan.*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $R/memcheck.txt
SECONDS=0
timeout 150 $b/tcsparse bench --suite default --methods cusparse,cusparse_alg2,dasp,csr_overlap,hbp,auto \
  --precisions fp64,fp32,fp16,bf16 --runs 10 --plan-builds 1 --output $R/default-all.jsonl > $R/default-all.txt 2>&1
echo "default all methods rc $? [$SECONDS s]"
SECONDS=0
timeout 60 $b/tcsparse bench --suite default --methods auto --auto-measure false \
  --precisions fp64,fp32,fp16,bf16 --runs 10 --plan-builds 1 --output $R/default-auto-rule.jsonl > /dev/null 2>&1
echo "default auto rule-only rc $? [$SECONDS s]"
python3 .exp/now/summarize.py $R/default-all.jsonl $R/default-auto-rule.jsonl | tee $R/default-summary.txt | tail -8
SECONDS=0
$b/tcsparse bench --suite spmm --spmm-n 16,256 --list 2>&1 | tail -3
timeout 200 $b/tcsparse bench --suite spmm --spmm-n 16,256 --methods cusparse,cublas_dense,tca,auto \
  --precisions fp16 --runs 10 --plan-builds 1 --output $R/llm-all.jsonl > $R/llm-all.txt 2>&1
echo "llm all rc $? [$SECONDS s]"
SECONDS=0
timeout 60 $b/tcsparse bench --suite spmm --spmm-n 16,256 --methods auto --auto-measure false \
  --precisions fp16 --runs 10 --plan-builds 1 --output $R/llm-auto-rule.jsonl > /dev/null 2>&1
echo "llm auto rule-only rc $? [$SECONDS s]"
python3 .exp/now/summarize.py $R/llm-all.jsonl $R/llm-auto-rule.jsonl > $R/llm-summary.txt; grep -c "<--" $R/llm-summary.txt; tail -4 $R/llm-summary.txt
gzip -f $R/*.jsonl

#!/usr/bin/env bash
# Run 318: each warp loads its first two windows' ends and rows before it waits for B and its
# first stage of groups (they were loaded after: one more latency before the first MMA), against
# run 317's build ("before"). 1. the GPU tests of tca (SpmmLayouts, the conformance and
# apply-promise cases, plans from device CSR); memcheck and racecheck on the gather tests; 2. the
# 24 LLM weights at n = 8 / 16, row-major, both builds, dense cuBLAS in the same runs, two
# passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run318.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
D=bench/results/2026-11-30-0940-h200-tca-gather-pairs
SECONDS=0
F='SpmmLayouts.*:*Conformance*tca*:*ApplyPromises*tca*:*FromDeviceCsr*tca*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
M='SpmmLayouts.TcaGather*'
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter="$M" --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -3
  grep -m5 -A8 "Invalid\|Race\|Error" $R/$tool.txt | head -30
done
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1 2; do
  SECONDS=0
  timeout 200 $b/tcsparse bench $(weights 0.90 0.70 0.95) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 16,8 --layout row_major --runs 20 --variant gather:kernel=gather \
    --variant tiles:kernel=tiles --output $R/new-$pass.jsonl > $R/bench-new-$pass.txt 2>&1
  echo "bench new pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-new-$pass.txt
  SECONDS=0
  timeout 200 $b/tcsparse_before bench $(weights 0.90 0.70 0.95) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 16,8 --layout row_major --runs 20 --variant gather:kernel=gather \
    --output $R/before-$pass.jsonl > $R/bench-before-$pass.txt 2>&1
  echo "bench before pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-before-$pass.txt
done
for v in new before; do echo "== $v"; python3 $D/summarize.py $R $v- 2>&1 | grep -v "shape (" | tail -6; done
python3 $D/summarize.py $R new- 2>&1 | head -80
cd $R && tar czf $OUT/run318-records.tar.gz *.jsonl bench-*.txt gpu-tests.txt
cat memcheck.txt racecheck.txt > $OUT/run318-sanitizers.txt 2>/dev/null

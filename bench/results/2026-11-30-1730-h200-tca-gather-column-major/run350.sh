#!/usr/bin/env bash
# Run 350: column-major B staged by tensor copies of B^T (boxes of 64 of its rows), each box
# rewritten in place as 64 staged rows by ldmatrix.trans (slices of up to 32 columns, chunks of
# whole boxes); run 349's movmatrix staging as stage_b=copies. 1. the 24 LLM weights at 70 / 90 / 95 %,
# n = 8 / 16 / 32, column-major B and C, auto and --variant gather:kernel=gather, dense cuBLAS in
# the same runs, two passes; 2. the gather and tca GPU tests (16 shards); memcheck and
# racecheck on the column-major test.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run350.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=bench/results/2026-11-30-1200-h200-tca-gather-resident/summarize.py
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1 2; do
  SECONDS=0
  timeout 150 $b/tcsparse bench $(weights 0.90 0.95 0.70) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 32,16,8 --layout column_major --runs 20 --variant gather:kernel=gather --variant copies:kernel=gather,stage_b=copies \
    --output $R/new-$pass.jsonl > $R/bench-new-$pass.txt 2>&1
  echo "bench pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-new-$pass.txt
done
python3 $S $R new- 2>&1 | tail -9
python3 $S $R new- 2>&1 | grep -E " (8|16|32) " | head -80
cd $R && tar czf $OUT/run350-records.tar.gz *.jsonl bench-*.txt; cd - > /dev/null
SECONDS=0
F='SpmmLayouts.Tca*:*Conformance*tca*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 240 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt | gzip -c > $OUT/run350-gpu-tests.txt.gz
SECONDS=0
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaGatherGivesTheSameBits*' --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -3
done
cat $R/memcheck.txt $R/racecheck.txt > $OUT/run350-sanitizers.txt

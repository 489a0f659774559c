#!/usr/bin/env bash
# Run 359: the final build: gather_row_offset in unsigned arithmetic (every staging path), the
# transposition's row unsigned (run 358). 1. the tca, AutoPlan and conformance GPU tests (16
# shards); 2. auto on the 24 LLM weights at 70 / 90 / 95 %, n = 8 / 16 / 32, column-major and
# row-major, dense cuBLAS in the same runs; 3. memcheck and synccheck on the column-major gather
# test.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run359.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=bench/results/2026-11-30-1200-h200-tca-gather-resident/summarize.py
SECONDS=0
F='SpmmLayouts.Tca*:*Conformance*tca*:AutoPlan.*:*ApplyPromises*tca*:*FromDeviceCsr*tca*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt | gzip -c > $OUT/run359-gpu-tests.txt.gz
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for layout in column_major row_major; do
  SECONDS=0
  timeout 100 $b/tcsparse bench $(weights 0.90 0.95 0.70) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 32,16,8 --layout $layout --runs 20 --output $R/$layout-1.jsonl > $R/bench-$layout-1.txt 2>&1
  echo "bench $layout rc $? [$SECONDS s]"; tail -1 $R/bench-$layout-1.txt
  python3 $S $R $layout- 2>&1 | tail -9
done
cd $R && tar czf $OUT/run359-records.tar.gz *.jsonl bench-*.txt; cd - > /dev/null
for tool in memcheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaGatherGivesTheSameBits*' --gtest_brief=1 > $OUT/run359-$tool.txt 2>&1
  echo "$tool rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/run359-$tool.txt | tail -3
done

#!/usr/bin/env bash
# Run 311: after the mends of rereading (one pair of output conversions for tca, B staged by the builder's gather_row_offset, the tiles rule for slice widths). 1. the GPU tests of tca (SpmmLayouts, the conformance
# and apply-promise cases, plans from device CSR); memcheck and racecheck on the gather tests;
# 2. the LLM weights at 70 / 90 / 95 %, uniform and skewed, n = 8 / 16, row-major: dense cuBLAS,
# tca auto and each of its kernels gather, tiles and rows.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run311.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
D=bench/results/2026-11-30-0900-h200-tca-gather
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
grep -h "OK \] SpmmLayouts.TcaKernels\|OK \] SpmmLayouts.TcaGather" $R/tests-*.txt
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
M='SpmmLayouts.TcaGather*'
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter="$M" --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -3
  grep -m5 -A8 "Invalid\|Race\|Error" $R/$tool.txt | head -30
done
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
SECONDS=0
timeout 300 $b/tcsparse bench $(weights 0.90 0.70 0.95) --methods tca,cublas_dense --precisions fp16 \
  --spmm-n 16,8 --layout row_major --runs 20 --variant gather:kernel=gather \
  --variant tiles:kernel=tiles --variant rows:kernel=rows \
  --output $R/gather-1.jsonl > $R/bench-1.txt 2>&1
echo "bench rc $? [$SECONDS s]"; tail -3 $R/bench-1.txt
python3 $D/summarize.py $R
cd $R && for f in *.jsonl gpu-tests.txt; do [ -f $f ] && gzip -c $f > $OUT/run311-$f.gz; done
cat memcheck.txt racecheck.txt > $OUT/run311-sanitizers.txt 2>/dev/null; cd - > /dev/null

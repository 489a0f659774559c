#!/usr/bin/env bash
# Run 225: tca tiles with decode chunks of the narrowest width whose blocks all run at once (2-8
# segments) and only the first run copied before griddepcontrol.wait; tcsparse_old is c3cb9fc's.
# 1. the GPU tests of tca and the arch layer; memcheck / racecheck / synccheck on the tiles tests;
# 2. the 8 LLM weights at 70 and 90 %, n = 8 / 16 / 32 / 64, row-major: dense cuBLAS and the old
# and new binaries' tca, three rounds interleaved; 3. the rows / tiles crossover behind
# kernel=auto at n = 8 and 16 with the new chunks: the 4 shapes at 80, 90 and 95 %, uniform and
# skewed, variants rows:kernel=rows and tiles:kernel=tiles, two rounds.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run225.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='SpmmLayouts.*:*Conformance*tca*:*ApplyPromises*tca*:*FromDeviceCsr*tca*:ArchClusterTest.*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A10 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
M='SpmmLayouts.TcaTiles*'
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter="$M" --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -3
done
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
SECONDS=0
for round in 1 2 3; do
  timeout 200 $b/tcsparse_old bench $(weights 0.70 0.90) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 8,16,32,64 --layout row_major --runs 20 --output $R/old-$round.jsonl > /dev/null 2>&1
  echo "old round $round rc $? [$SECONDS s]"
  timeout 200 $b/tcsparse bench $(weights 0.70 0.90) --methods tca --precisions fp16 \
    --spmm-n 8,16,32,64 --layout row_major --runs 20 --output $R/new-$round.jsonl > /dev/null 2>&1
  echo "new round $round rc $? [$SECONDS s]"
done
for round in 1 2; do
  timeout 200 $b/tcsparse bench $(weights 0.80 0.90 0.95) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 8,16 --layout row_major --runs 20 --variant rows:kernel=rows --variant tiles:kernel=tiles \
    --output $R/crossover-$round.jsonl > /dev/null 2>&1
  echo "crossover round $round rc $? [$SECONDS s]"
done
python3 bench/results/2026-11-29-1130-h200-tca-wave-chunks/summarize.py $R
python3 bench/results/2026-11-29-1130-h200-tca-wave-chunks/summarize_crossover.py $R
cd $R && tar czf $OUT/run225-results.tgz . && cd - > /dev/null && rm -rf $R

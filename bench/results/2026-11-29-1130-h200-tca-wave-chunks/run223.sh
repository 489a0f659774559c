#!/usr/bin/env bash
# Run 223: tca tiles, only the first segment's run copied before griddepcontrol.wait (the second
# fetched into the L2 there), so that the first cp.async group is B's first stage and the first
# run again. Binaries built off the GPU machine: tcsparse_old is the previous commit's (c3cb9fc).
# 1. the GPU tests of tca and the arch layer; memcheck / racecheck / synccheck on the dependent
# launch and split-K tests; 2. the 8 LLM weights at 70 and 90 %, n = 8 / 16 / 32 / 64, row-major,
# dense cuBLAS, the old binary's tca and the new one's, with variants plain:dependent_launch=off
# and chunk widths of 3 / 4 / 5 / 6 segments (768 ... 1536 columns), three rounds interleaved.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run223.log) 2>&1
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
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.70 0.90; do for d in uniform skewed; do W="$W llm:$shape:s$s:$d"; done; done
done
SECONDS=0
for round in 1 2 3; do
  timeout 200 $b/tcsparse_old bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 8,16,32,64 \
    --layout row_major --runs 20 --output $R/old-$round.jsonl > /dev/null 2>&1
  echo "old round $round rc $? [$SECONDS s]"
  timeout 250 $b/tcsparse bench $W --methods tca --precisions fp16 --spmm-n 8,16,32,64 \
    --layout row_major --runs 20 --variant plain:dependent_launch=off \
    --variant c768:chunk_columns=768 --variant c1024:chunk_columns=1024 \
    --variant c1280:chunk_columns=1280 --variant c1536:chunk_columns=1536 \
    --output $R/new-$round.jsonl > /dev/null 2>&1
  echo "new round $round rc $? [$SECONDS s]"
done
python3 bench/results/2026-11-29-1130-h200-tca-wave-chunks/summarize.py $R
cd $R && tar czf $OUT/run223-results.tgz . && cd - > /dev/null && rm -rf $R

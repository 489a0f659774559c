#!/bin/bash
# DASP variant experiment (device run 1). Binaries: .device-bin/tcsparse (default kernels),
# tcsparse-p3 (3 irregular values prefetched), tcsparse_gpu_tests.
cd "$(dirname "$0")/.."
export TCSPARSE_MATRIX_DIR=$PWD/.matrices
B=.device-bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $OUT/gpu.txt
timeout 200 $B/tcsparse_gpu_tests --gtest_brief=1 > $OUT/gpu-tests.txt 2>&1; echo "gpu tests exit $?" >> $OUT/gpu-tests.txt
large=$($B/tcsparse bench --suite default --list 2>/dev/null | head -10 | cut -f2)
# 1. large matrices: per matrix, the three binaries back to back
mkdir -p $OUT/large
i=0
for spec in $large; do
  i=$((i+1))
  timeout 60 $B/tcsparse bench "$spec" --methods cusparse,dasp --precisions fp64,fp16 --runs 50 \
    --variant mf1:regular_block_min_fill=1 --variant bif4:blocks_in_flight=4 \
    --variant pipe1:pipelined_loads=1 --variant pipe0:pipelined_loads=0 --variant again:fill=device \
    -o $OUT/large/base-$i.jsonl >/dev/null 2>>$OUT/exp.log
  timeout 40 $B/tcsparse-p3 bench "$spec" --methods dasp --precisions fp64,fp16 --runs 50 \
    --variant mf1:regular_block_min_fill=1 -o $OUT/large/p3-$i.jsonl >/dev/null 2>>$OUT/exp.log
  echo "large $i done $(date +%T)" >> $OUT/exp.log
done
# 2. small matrices (< 1 M nonzeros: default suite's small ones + real matrices), base kernels
timeout 200 $B/tcsparse bench .matrices --suite default --max-nnz 1000000 --methods cusparse,dasp \
  --precisions fp64,fp16 --runs 30 --variant lg4:long_groups_per_warp=4 \
  --variant mb16:medium_blocks_per_warp=16 --variant lg4mb16:long_groups_per_warp=4,medium_blocks_per_warp=16 \
  --variant mml16:max_medium_row_length=16 --variant mml32:max_medium_row_length=32 \
  --variant mml256:max_medium_row_length=256 --variant again:fill=device \
  -o $OUT/small-base.jsonl > $OUT/small-base.txt 2>>$OUT/exp.log
echo "small base exit $? $(date +%T)" >> $OUT/exp.log
timeout 100 $B/tcsparse-p3 bench .matrices --suite default --max-nnz 1000000 --methods cusparse,dasp \
  --precisions fp64,fp16 --runs 30 --variant mf1:regular_block_min_fill=1 \
  -o $OUT/small-p3.jsonl > $OUT/small-p3.txt 2>>$OUT/exp.log
echo "small p3 exit $? $(date +%T)" >> $OUT/exp.log
cd $OUT && tar czf large.tgz large && rm -rf large && gzip -f small-base.jsonl small-p3.jsonl

#!/bin/bash
# DASP small-matrix work split experiment (not part of the repo).
cd "$(dirname "$0")/.."
B=.device-bin/tcsparse
export TCSPARSE_MATRIX_DIR=$PWD/.matrices
run() { name=$1; methods=$2; shift 2
  timeout 100 $B bench .matrices --suite default --max-nnz 1000000 --methods $methods --precisions fp64,fp16 --runs 30 "$@" -o $OUT/$name.jsonl > /dev/null 2>>$OUT/exp.log
  echo "$name exit $? $(date +%T)"; }
run base cusparse,dasp
run lg4 dasp --param long_groups_per_warp=4
run lg8 dasp --param long_groups_per_warp=8
run mb16 dasp --param medium_blocks_per_warp=16
run mb8 dasp --param medium_blocks_per_warp=8
run lg4mb16 dasp --param long_groups_per_warp=4 --param medium_blocks_per_warp=16
run mml16 dasp --param max_medium_row_length=16

#!/usr/bin/env bash
# Run 310: the two split-K tests after their repeat-and-replay checks moved into one helper
# (tests/gpu/test_spmm_layouts.cpp), plainly and under memcheck.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee -a $OUT/run310.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/tcsparse_gpu_tests; chmod +x $b/*
F='SpmmLayouts.TcaTilesSplitK*:SpmmLayouts.TcaGather*'
$b/tcsparse_gpu_tests --gtest_filter="$F" 2>&1 | grep -E "OK|FAILED|PASSED|Failure"
compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter="$F" --gtest_brief=1 2>&1 | tail -3

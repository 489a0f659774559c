#!/usr/bin/env bash
# Run 170: the final code (run 169's with the auto test's row_vector_size check on the band):
# the partition=auto tests of csr_overlap, then memcheck of them.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run170.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/tcsparse_gpu_tests; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='CsrOverlapGpu.AutoTakes*:CsrOverlapGpu.AutoGives*:CsrOverlapGpu.LongRow*:CsrOverlapGpu.MergeTiles*'
timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/gpu-tests.txt 2>&1
echo "tests rc $? [$SECONDS s]"; grep -E "^\[  (PASSED|FAILED)|^\[       OK" $R/gpu-tests.txt
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter="$F" --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
gzip -f $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

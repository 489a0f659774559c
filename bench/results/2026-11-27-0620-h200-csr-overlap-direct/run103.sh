#!/usr/bin/env bash
# Run 103: the auto-rule test rewritten for direct warps, and the direct tests, on the final code.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee -a $OUT/run103.log) 2>&1
b=/tmp/bin; mkdir -p $b; xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/t; chmod +x $b/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 200 $b/t --gtest_filter='CsrOverlapGpu.AutoGives*:*CsrOverlap*Direct*:CsrOverlapGpu.Borrow*' --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "tests rc $? [$SECONDS s]"; grep -E "PASSED|FAILED|SKIPPED" $OUT/tests.txt
grep -h -B2 -A12 "Failure" $OUT/tests.txt | head -30

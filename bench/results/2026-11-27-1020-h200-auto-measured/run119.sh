#!/usr/bin/env bash
# Run 119 (final code, rule fit_auto_choice-dca64aedaa00): every GPU test naming auto, memcheck of
# the auto plan tests, and the Python package built on the GPU machine with its GPU tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run119.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/tcsparse_gpu_tests; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 --version
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter='*AutoPlan*:*auto*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "auto tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 120 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='AutoPlan.*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -2 $R/memcheck.txt
deps=$PWD/.deps/root/usr
zlib=$(ls /lib/x86_64-linux-gnu/libz.so* /usr/lib/x86_64-linux-gnu/libz.so* 2>/dev/null | head -1)
SECONDS=0
python3 -m pip install -q --no-build-isolation --no-deps -Cbuild-dir=build/python \
  -Ccmake.define.CMAKE_CUDA_ARCHITECTURES=90 \
  "-Ccmake.define.CMAKE_PREFIX_PATH=$deps;$deps/lib/x86_64-linux-gnu/cmake" \
  -Ccmake.define.ZLIB_INCLUDE_DIR=$deps/include -Ccmake.define.ZLIB_LIBRARY=$zlib . > $R/pip.log 2>&1
echo "pip rc $? [$SECONDS s]"; tail -3 $R/pip.log
SECONDS=0
timeout 200 python3 -m pytest -q -ra python/tests > $R/pytest-gpu.log 2>&1; echo "pytest rc $? [$SECONDS s]"; tail -6 $R/pytest-gpu.log
grep -n "auto_measure\|test_auto" $R/pytest-gpu.log | head
tar -C $OUT -czf $OUT/r.tar.gz r && rm -rf $R

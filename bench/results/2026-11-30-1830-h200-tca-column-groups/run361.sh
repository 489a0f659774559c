#!/usr/bin/env bash
# Run 361: the Python package with SpmmPlan(output="fp32") (C in float32 for fp16 / bf16 plans),
# built here (pip install .), and its tests on the GPU.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run361.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
deps=$PWD/.deps/root/usr
zlib=$(ls /lib/x86_64-linux-gnu/libz.so* /usr/lib/x86_64-linux-gnu/libz.so* 2>/dev/null | head -1)
SECONDS=0
python3 -m pip install -q --no-build-isolation --no-deps -Cbuild-dir=build/python \
  -Ccmake.define.CMAKE_CUDA_ARCHITECTURES=90 \
  "-Ccmake.define.CMAKE_PREFIX_PATH=$deps;$deps/lib/x86_64-linux-gnu/cmake" \
  -Ccmake.define.ZLIB_INCLUDE_DIR=$deps/include -Ccmake.define.ZLIB_LIBRARY=$zlib . > $R/pip.log 2>&1
echo "pip rc $? [$SECONDS s]"; tail -3 $R/pip.log
SECONDS=0
timeout 200 python3 -m pytest -q -ra python/tests > $OUT/run361-pytest-gpu.log 2>&1; echo "pytest rc $? [$SECONDS s]"
tail -12 $OUT/run361-pytest-gpu.log
timeout 60 python3 -m pytest -v -k "fp32_for_fp16 or output_fp32 or column_major" python/tests 2>&1 | grep -E "PASSED|FAILED|SKIPPED|ERROR" | cut -c1-150 | tee $OUT/run361-new-tests.txt | tail -40

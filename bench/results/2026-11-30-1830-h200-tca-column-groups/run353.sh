#!/usr/bin/env bash
# Run 353: the final build (column-major B's boxes in one tensor copy where B's rows are whole
# boxes; Python's SpmmPlan layout=). 1. the tca, AutoPlan and conformance GPU tests (16 shards);
# 2. auto on the 24 LLM weights at 70 / 90 / 95 %, n = 8 / 16 / 32, column-major and row-major,
# dense cuBLAS in the same runs; 3. memcheck, racecheck and synccheck on the column-major gather
# test while the Python package builds (pip install .); its tests on the GPU.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run353.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=bench/results/2026-11-30-1200-h200-tca-gather-resident/summarize.py
SECONDS=0
F='SpmmLayouts.Tca*:*Conformance*tca*:AutoPlan.*:*ApplyPromises*tca*:*FromDeviceCsr*tca*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt | gzip -c > $OUT/run353-gpu-tests.txt.gz
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for layout in column_major row_major; do
  SECONDS=0
  timeout 100 $b/tcsparse bench $(weights 0.90 0.95 0.70) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 32,16,8 --layout $layout --runs 20 --output $R/$layout-1.jsonl > $R/bench-$layout-1.txt 2>&1
  echo "bench $layout rc $? [$SECONDS s]"; tail -1 $R/bench-$layout-1.txt
  python3 $S $R $layout- 2>&1 | tail -9
done
cd $R && tar czf $OUT/run353-records.tar.gz *.jsonl bench-*.txt; cd - > /dev/null
deps=$PWD/.deps/root/usr
zlib=$(ls /lib/x86_64-linux-gnu/libz.so* /usr/lib/x86_64-linux-gnu/libz.so* 2>/dev/null | head -1)
( SECONDS=0; python3 -m pip install -q --no-build-isolation --no-deps -Cbuild-dir=build/python \
  -Ccmake.define.CMAKE_CUDA_ARCHITECTURES=90 \
  "-Ccmake.define.CMAKE_PREFIX_PATH=$deps;$deps/lib/x86_64-linux-gnu/cmake" \
  -Ccmake.define.ZLIB_INCLUDE_DIR=$deps/include -Ccmake.define.ZLIB_LIBRARY=$zlib . > $R/pip.log 2>&1
  echo "pip rc $? [$SECONDS s]" > $R/pip.rc ) &
pip_pid=$!
SECONDS=0
for tool in memcheck synccheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaGatherGivesTheSameBitsWithColumnMajor*' --gtest_brief=1 > $OUT/run353-$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|HAZARD|PASSED|FAILED" $OUT/run353-$tool.txt | tail -3
done
wait $pip_pid; cat $R/pip.rc; tail -3 $R/pip.log
SECONDS=0
timeout 200 python3 -m pytest -q -ra python/tests > $OUT/run353-pytest-gpu.log 2>&1; echo "pytest rc $? [$SECONDS s]"; tail -4 $OUT/run353-pytest-gpu.log
grep -E "column_major|layout|transposed" $OUT/run353-pytest-gpu.log | head

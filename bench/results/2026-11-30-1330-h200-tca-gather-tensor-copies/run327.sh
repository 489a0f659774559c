#!/usr/bin/env bash
# Run 327: as run 326, the tensor copies now of whole 128-byte lines (B cut into lines where its
# rows are narrower; the stage swizzled as the TMA's 128-byte mode places them), a block barrier
# between the mbarrier's initialisation and its waits where no cluster barrier is.
# 1. the GPU tests of tca and AutoPlan (16 shards); memcheck, racecheck and synccheck on the
# gather tests (racecheck and synccheck on the bitwise-repeat test only); 2. the 16 LLM weights at 90 / 95 %, n = 8 / 16 / 32, row-major: auto (tensor
# copies, multicast 2) against stage_b=copies, multicast=1 and multicast=4, dense cuBLAS in the
# same runs, two passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run327.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
D=bench/results/2026-11-30-1330-h200-tca-gather-tensor-copies
S=bench/results/2026-11-30-1200-h200-tca-gather-resident/summarize.py
SECONDS=0
F='SpmmLayouts.*:*Conformance*tca*:*ApplyPromises*tca*:*FromDeviceCsr*tca*:AutoPlan.*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 240 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
M='SpmmLayouts.TcaGather*'
for tool in memcheck racecheck synccheck; do
  [ $tool != memcheck ] && M='SpmmLayouts.TcaGatherRepeats*'
  timeout 150 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter="$M" --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -3
  grep -m5 -A8 "Invalid\|Race\|Error\|Barrier" $R/$tool.txt | head -30
done
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1 2; do
  SECONDS=0
  timeout 200 $b/tcsparse bench $(weights 0.90 0.95) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 32,16,8 --layout row_major --runs 20 --variant copies:stage_b=copies \
    --variant multicast1:multicast=1 --variant multicast4:multicast=4 \
    --output $R/new-$pass.jsonl > $R/bench-$pass.txt 2>&1
  echo "bench pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-$pass.txt
done
python3 $S $R new- 2>&1 | grep -v "shape (" | tail -7
python3 $S $R new- 2>&1 | head -60
cd $R && tar czf $OUT/run327-records.tar.gz *.jsonl bench-*.txt gpu-tests.txt
cat memcheck.txt racecheck.txt synccheck.txt > $OUT/run327-sanitizers.txt 2>/dev/null
cd - > /dev/null

#!/usr/bin/env bash
# Run 342: tca kernel=gather waiting for B's stage part by part (each tensor copy of up to 256
# lines on its own mbarrier; the builder orders each row's nonzeros by part and each window's
# groups so that every warp's run starts on part 0). 1. the GPU tests of tca and AutoPlan (16
# shards); memcheck on the gather tests, racecheck and synccheck on the bitwise-repeat test;
# 2. the 16 LLM weights at 90 / 95 %, n = 8 / 16 / 32, row-major: this build ("new") against
# 905bc14 ("base"), dense cuBLAS in the same runs, two passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run342.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=bench/results/2026-11-30-1200-h200-tca-gather-resident/summarize.py
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1 2; do
  for v in new base; do
    SECONDS=0
    bin=$b/tcsparse; [ $v != new ] && bin=$b/tcsparse_$v
    timeout 150 $bin bench $(weights 0.90 0.95) --methods tca,cublas_dense --precisions fp16 \
      --spmm-n 32,16,8 --layout row_major --runs 20 --output $R/$v-$pass.jsonl > $R/bench-$v-$pass.txt 2>&1
    echo "bench $v pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-$v-$pass.txt
  done
done
for v in new base; do echo "== $v"; python3 $S $R $v- 2>&1 | grep -v "shape (" | tail -6; done
python3 $S $R new- 2>&1 | grep -E "s0.9" | head -60
cd $R && tar czf $OUT/run342-records.tar.gz *.jsonl bench-*.txt; cd - > /dev/null
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
gzip -c $R/gpu-tests.txt > $OUT/run342-gpu-tests.txt.gz
SECONDS=0
M='SpmmLayouts.TcaGather*'
for tool in memcheck racecheck synccheck; do
  [ $tool != memcheck ] && M='SpmmLayouts.TcaGatherRepeats*'
  timeout 200 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter="$M" --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -3
  grep -m5 -A8 "Invalid\|Race\|Error\|Barrier" $R/$tool.txt | head -30
done
cat $R/memcheck.txt $R/racecheck.txt $R/synccheck.txt > $OUT/run342-sanitizers.txt 2>/dev/null

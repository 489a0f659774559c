#!/usr/bin/env bash
# Run 313: the gather kernel in the transposed product (8-row windows, two nonzeros a row a
# group, one MMA a group up to 16 columns) with 16 warps a block and accumulator sets. 1. the GPU
# tests of tca (SpmmLayouts, the conformance and apply-promise cases, plans from device CSR);
# memcheck and racecheck on the gather tests; 2. the 24 LLM weights at n = 8 / 16 / 32,
# row-major: builds p2 / p4 / p8 (2, 4, 8 independent MMAs) against m4 (run 312's diagonal
# kernel, 8 warps, 4 independent MMAs); tiles and dense cuBLAS in the same runs.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run313.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
D=bench/results/2026-11-30-0940-h200-tca-gather-pairs
SECONDS=0
F='SpmmLayouts.*:*Conformance*tca*:*ApplyPromises*tca*:*FromDeviceCsr*tca*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
M='SpmmLayouts.TcaGather*:SpmmLayouts.TcaKernels*gather*'
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter="$M" --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -3
  grep -m5 -A8 "Invalid\|Race\|Error" $R/$tool.txt | head -30
done
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1 2; do
for v in m4 p4 p2 p8; do
  SECONDS=0
  bin=$b/tcsparse_$v; [ $v = p4 ] && bin=$b/tcsparse
  timeout 200 $bin bench $(weights 0.90 0.70 0.95) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 32,16,8 --layout row_major --runs 20 --variant gather:kernel=gather \
    --variant tiles:kernel=tiles --output $R/$v-$pass.jsonl > $R/bench-$v-$pass.txt 2>&1
  echo "bench $v pass $pass rc $? [$SECONDS s]"; grep -i "error\|fail" $R/bench-$v-$pass.txt | head -3
done
done
for v in m4 p4 p2 p8; do echo "== $v"; python3 $D/summarize.py $R $v- 2>&1 | grep -v "shape (" | tail -10; done
python3 $D/summarize.py $R p4- 2>&1 | head -80
cd $R && tar czf $OUT/run313-records.tar.gz *.jsonl gpu-tests.txt bench-*.txt
cat memcheck.txt racecheck.txt > $OUT/run313-sanitizers.txt 2>/dev/null; cd - > /dev/null

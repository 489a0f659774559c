#!/usr/bin/env bash
# Run 325: the builder orders an octet's slots by their rows' residues left, fewest first
# (octets repeating a column residue mod 8: 17 -> 9 % at 90 %, 24 -> 13 % at 95 %), against
# run 324's build ("prev"). 1. the GPU tests of tca and AutoPlan; memcheck on the gather tests;
# 2. the 24 LLM weights at n = 8 / 16 / 32, row-major, both builds, dense cuBLAS in the same
# runs, one pass. The builder change: run325-octet-order.patch (not kept).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run325.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
D=bench/results/2026-11-30-1200-h200-tca-gather-resident
SECONDS=0
F='SpmmLayouts.*:*Conformance*tca*:*ApplyPromises*tca*:*FromDeviceCsr*tca*:AutoPlan.*'
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
M='SpmmLayouts.TcaGather*'
for tool in memcheck; do
  timeout 150 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter="$M" --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -3
  grep -m5 -A8 "Invalid\|Race\|Error" $R/$tool.txt | head -30
done
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1; do
  for v in new prev; do
    SECONDS=0
    bin=$b/tcsparse; [ $v != new ] && bin=$b/tcsparse_$v
    timeout 200 $bin bench $(weights 0.90 0.70 0.95) --methods tca,cublas_dense --precisions fp16 \
      --spmm-n 32,16,8 --layout row_major --runs 20 --variant gather:kernel=gather \
      --variant tiles:kernel=tiles --output $R/$v-$pass.jsonl > $R/bench-$v-$pass.txt 2>&1
    echo "bench $v pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-$v-$pass.txt
  done
done
for v in new prev; do echo "== $v"; python3 $D/summarize.py $R $v- 2>&1 | grep -v "shape (" | tail -9; done
python3 $D/summarize.py $R new- 2>&1 | head -0
cd $R && tar czf $OUT/run325-records.tar.gz *.jsonl bench-*.txt gpu-tests.txt
cat memcheck.txt racecheck.txt > $OUT/run325-sanitizers.txt 2>/dev/null
cd - > /dev/null

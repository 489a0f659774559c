#!/usr/bin/env bash
# Run 322: the ldmatrix of four groups (a quad's at up to 16 columns, two groups' at 32, one's
# at 64) issued before their MMAs (each ldmatrix waited for the MMA before it: they were written
# into the same registers), against run 321's build ("quads"). 1. the GPU tests of tca; memcheck
# and racecheck on the gather tests; 2. the 24 LLM weights at n = 8 / 16 / 32 / 64, row-major,
# both builds, dense cuBLAS in the same runs, two passes; 3. Nsight Compute of gather on
# 14336 x 4096 at 90 %, n = 16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run322.log) 2>&1
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
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter="$M" --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -3
  grep -m5 -A8 "Invalid\|Race\|Error" $R/$tool.txt | head -30
done
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1 2; do
  for v in new quads; do
    SECONDS=0
    bin=$b/tcsparse; [ $v != new ] && bin=$b/tcsparse_$v
    timeout 200 $bin bench $(weights 0.90 0.70 0.95) --methods tca,cublas_dense --precisions fp16 \
      --spmm-n 64,32,16,8 --layout row_major --runs 20 --variant gather:kernel=gather \
      --variant tiles:kernel=tiles --output $R/$v-$pass.jsonl > $R/bench-$v-$pass.txt 2>&1
    echo "bench $v pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-$v-$pass.txt
  done
done
for v in new quads; do echo "== $v"; python3 $D/summarize.py $R $v- 2>&1 | grep -v "shape (" | tail -12; done
python3 $D/summarize.py $R new- 2>&1 | head -110
cd $R && tar czf $OUT/run322-records.tar.gz *.jsonl bench-*.txt gpu-tests.txt
cat memcheck.txt racecheck.txt > $OUT/run322-sanitizers.txt 2>/dev/null
cd - > /dev/null
w=llm:14336x4096:s0.90:uniform
SECONDS=0
timeout 120 ncu --clock-control none --kernel-name regex:tca_gather_kernel --launch-skip 3 --launch-count 1 \
  --set full --import-source no -o $R/prof-16 $b/tcsparse bench $w --methods tca --precisions fp16 \
  --spmm-n 16 --layout row_major --runs 5 --plan-builds 1 --param kernel=gather > $R/ncu-16.log 2>&1
echo "ncu rc $? [$SECONDS s]"; tail -1 $R/ncu-16.log
ncu --import $R/prof-16.ncu-rep --page details --csv > $R/run322-ncu-n16-details.csv 2>&1
ncu --import $R/prof-16.ncu-rep --page source --csv --print-source sass > $R/run322-ncu-n16-source.csv 2>&1
cd $R && tar czf $OUT/run322-ncu.tar.gz run322-ncu-*.csv

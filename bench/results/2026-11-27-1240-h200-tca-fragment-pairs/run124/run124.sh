#!/usr/bin/env bash
# Run 124: tca kernel=tiles as fragment register pairs, B staged by cp.async into two stages (the
# next segment's while this one multiplies), 3 blocks an SM at up to 16 columns. GPU tests of tca,
# memcheck and racecheck; decode on the LLM weights against dense cuBLAS and the previous tiles
# (0601d51) in one run; register variants; DLMC rn50 at n = 256 column-major.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run124.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 240 $b/tcsparse_gpu_tests --gtest_filter='*SpmmLayouts*:*tca*:*Tca*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 120 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*:SpmmLayouts.TcaAuto*:SpmmLayouts.TcaKernels*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $R/memcheck.txt
SECONDS=0
timeout 60 compute-sanitizer --tool racecheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*' --gtest_brief=1 > $R/racecheck.txt 2>&1
echo "racecheck rc $? [$SECONDS s]"; tail -3 $R/racecheck.txt
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.50 0.70 0.80 0.90 0.95; do W="$W llm:$shape:s$s:uniform"; done
  W="$W llm:$shape:s0.70:skewed llm:$shape:s0.90:skewed"
done
SECONDS=0
timeout 200 $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 8,16,32,64 \
  --layout row_major --runs 20 --plan-builds 1 --variant tiles:kernel=tiles \
  --output $R/decode-row-major.jsonl > $R/decode-row-major.txt 2>&1
echo "decode row-major rc $? [$SECONDS s]"
V="llm:4096x4096:s0.70:uniform llm:11008x4096:s0.70:uniform llm:4096x11008:s0.70:uniform llm:14336x4096:s0.70:uniform llm:4096x4096:s0.90:uniform llm:11008x4096:s0.90:uniform llm:4096x11008:s0.90:uniform llm:14336x4096:s0.90:uniform"
for v in old q4b2 q2b3; do
  SECONDS=0
  timeout 60 $b/tcsparse-$v bench $V --methods tca --param kernel=tiles --precisions fp16 --spmm-n 8,16,64 \
    --layout row_major --runs 20 --plan-builds 1 --output $R/decode-variant-$v.jsonl > $R/decode-variant-$v.txt 2>&1
  echo "variant $v rc $? [$SECONDS s]"
done
SECONDS=0
timeout 100 $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 16 \
  --layout column_major --runs 20 --plan-builds 1 --output $R/decode-column-major.jsonl > $R/decode-column-major.txt 2>&1
echo "decode column-major rc $? [$SECONDS s]"
SECONDS=0
timeout 120 $b/tcsparse bench .mx/dlmc/rn50-0.9 --methods tca,cusparse,cublas_dense --precisions fp16 --spmm-n 256 \
  --layout column_major --runs 10 --plan-builds 1 --output $R/dlmc-new.jsonl > $R/dlmc-new.txt 2>&1
echo "dlmc new rc $? [$SECONDS s]"
SECONDS=0
timeout 90 $b/tcsparse-old bench .mx/dlmc/rn50-0.9 --methods tca --precisions fp16 --spmm-n 256 \
  --layout column_major --runs 10 --plan-builds 1 --output $R/dlmc-old.jsonl > $R/dlmc-old.txt 2>&1
echo "dlmc old rc $? [$SECONDS s]"
python3 .exp/now/decode_table.py $R/decode-row-major.jsonl $R/decode-variant-*.jsonl $R/decode-column-major.jsonl > $R/decode-summary.txt
tail -28 $R/decode-summary.txt
python3 .exp/now/dlmc_table.py $R/dlmc-new.jsonl $R/dlmc-old.jsonl | tee $R/dlmc-summary.txt | tail -6
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r

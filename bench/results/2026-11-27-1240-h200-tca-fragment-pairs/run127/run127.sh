#!/usr/bin/env bash
# Run 127 (final code): tca kernel=tiles with chunks of 512 columns at n <= 64 (from run 126's
# sweep). GPU tests of tca and the SpMM layouts, memcheck of the tiles tests; decode on the LLM
# weights (row-major n = 8-64, column-major n = 16) and DLMC at n = 256 against dense cuBLAS.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run127.log) 2>&1
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
timeout 100 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*:SpmmLayouts.TcaAuto*:SpmmLayouts.TcaKernels*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $R/memcheck.txt
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.50 0.70 0.80 0.90 0.95; do W="$W llm:$shape:s$s:uniform"; done
  W="$W llm:$shape:s0.70:skewed llm:$shape:s0.90:skewed"
done
run() { local name=$1; shift; SECONDS=0; timeout 120 "$@" --output $R/$name.jsonl > $R/$name.txt 2>&1; echo "$name rc $? [$SECONDS s]"; }
run decode-row-major $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 8,16,32,64 \
  --layout row_major --runs 20 --plan-builds 1 --variant tiles:kernel=tiles --variant rows:kernel=rows
run decode-column-major $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 16 \
  --layout column_major --runs 20 --plan-builds 1
run dlmc-column-major $b/tcsparse bench .mx/dlmc --methods tca,cusparse,cublas_dense --precisions fp16 \
  --spmm-n 256 --layout column_major --runs 10 --plan-builds 3
python3 .exp/now/decode_table.py $R/decode-row-major.jsonl $R/decode-column-major.jsonl > $R/decode-summary.txt
tail -25 $R/decode-summary.txt
python3 .exp/now/dlmc_table.py $R/dlmc-column-major.jsonl | tee $R/dlmc-summary.txt
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r

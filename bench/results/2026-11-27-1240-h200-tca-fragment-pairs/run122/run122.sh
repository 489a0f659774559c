#!/usr/bin/env bash
# Run 122: tca kernel=tiles by segments of 16 tiles (entries carry their tile; one 16-byte load
# run a segment, issued a segment ahead). GPU tests of tca, memcheck and racecheck of the tiles
# tests, then decode on the LLM weights: the new tiles kernel, the rows kernel, auto and dense
# cuBLAS, against the previous binary's tiles kernel, in one run.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run122.log) 2>&1
b=/tmp/bin; mkdir -p $b
for n in tcsparse tcsparse-old tcsparse_gpu_tests; do xz -dc .device-bin/$n.xz > $b/$n; done; chmod +x $b/*
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
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 120 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*:SpmmLayouts.TcaAuto*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $R/memcheck.txt
SECONDS=0
timeout 120 compute-sanitizer --tool racecheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*' --gtest_brief=1 > $R/racecheck.txt 2>&1
echo "racecheck rc $? [$SECONDS s]"; tail -3 $R/racecheck.txt
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.50 0.70 0.80 0.90 0.95; do W="$W llm:$shape:s$s:uniform"; done
  W="$W llm:$shape:s0.70:skewed llm:$shape:s0.90:skewed"
done
SECONDS=0
timeout 240 $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 8,16,32,64 \
  --layout row_major --runs 20 --plan-builds 1 --variant tiles:kernel=tiles --variant rows:kernel=rows \
  --output $R/decode-row-major.jsonl > $R/decode-row-major.txt 2>&1
echo "decode row-major rc $? [$SECONDS s]"
SECONDS=0
timeout 120 $b/tcsparse-old bench $W --methods tca --param kernel=tiles --precisions fp16 --spmm-n 8,16,32,64 \
  --layout row_major --runs 20 --plan-builds 1 --output $R/decode-row-major-old-tiles.jsonl > $R/decode-row-major-old.txt 2>&1
echo "decode row-major old tiles rc $? [$SECONDS s]"
SECONDS=0
timeout 120 $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 16 \
  --layout column_major --runs 20 --plan-builds 1 --variant tiles:kernel=tiles \
  --output $R/decode-column-major.jsonl > $R/decode-column-major.txt 2>&1
echo "decode column-major rc $? [$SECONDS s]"
SECONDS=0
W2="llm:4096x4096:s0.70:uniform llm:11008x4096:s0.70:uniform llm:4096x11008:s0.70:uniform llm:14336x4096:s0.70:uniform llm:4096x4096:s0.90:uniform llm:14336x4096:s0.90:uniform"
timeout 120 $b/tcsparse bench $W2 --methods tca --param kernel=tiles --precisions fp16 --spmm-n 16,64 \
  --layout row_major --runs 20 --plan-builds 1 --variant c256:kernel=tiles,chunk_columns=256 --variant c512:kernel=tiles,chunk_columns=512 \
  --variant c1024:kernel=tiles,chunk_columns=1024 --variant c2048:kernel=tiles,chunk_columns=2048 \
  --output $R/sweep-chunks.jsonl > $R/sweep-chunks.txt 2>&1
echo "sweep chunks rc $? [$SECONDS s]"
python3 .exp/now/decode_table.py $R/decode-row-major.jsonl $R/decode-row-major-old-tiles.jsonl $R/decode-column-major.jsonl $R/sweep-chunks.jsonl | tee $R/decode-summary.txt
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r

#!/usr/bin/env bash
# Run 133 (final tca code of this stop): tca kernel=tiles with the runs staged in shared memory by
# cp.async (whole at up to 16 columns when they fit, else their mask words), 2 blocks an SM.
# GPU tests (tca, SpMM layouts, conformance, apply promises, auto plans), memcheck, racecheck and
# synccheck of the tiles tests; then the issue 11 workloads in fp16 against dense cuBLAS and
# cuSPARSE, with the previous tiles kernel (15872c1, tcsparse-old) in the same run: decode (n = 8-64,
# row-major; n = 16 column-major), prefill (n = 256-2048), DLMC rn50 and transformer at 90 %
# (n = 256 and 2048, column-major, plan builds timed), and a sweep of the split-K chunk width.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run133.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter='*SpmmLayouts*:*tca*:*Tca*:*Conformance*:*ApplyPromises*:*AutoPlan*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 120 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*:SpmmLayouts.TcaAuto*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $R/memcheck.txt
SECONDS=0
timeout 60 compute-sanitizer --tool racecheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*' --gtest_brief=1 > $R/racecheck.txt 2>&1
echo "racecheck rc $? [$SECONDS s]"; tail -3 $R/racecheck.txt
SECONDS=0
timeout 60 compute-sanitizer --tool synccheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*' --gtest_brief=1 > $R/synccheck.txt 2>&1
echo "synccheck rc $? [$SECONDS s]"; tail -3 $R/synccheck.txt
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.50 0.70 0.80 0.90 0.95; do W="$W llm:$shape:s$s:uniform"; done
  W="$W llm:$shape:s0.70:skewed llm:$shape:s0.90:skewed"
done
run() { local name=$1; shift; SECONDS=0; timeout 110 "$@" --output $R/$name.jsonl > $R/$name.txt 2>&1; echo "$name rc $? [$SECONDS s]"; }
run decode-row-major $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 8,16,32,64 \
  --layout row_major --runs 20 --plan-builds 1 --variant tiles:kernel=tiles --variant rows:kernel=rows
run decode-row-major-old $b/tcsparse-old bench $W --methods tca --param kernel=tiles --precisions fp16 \
  --spmm-n 8,16,32,64 --layout row_major --runs 20 --plan-builds 1
run decode-column-major $b/tcsparse bench $W --methods tca,cublas_dense,cusparse --precisions fp16 --spmm-n 16 \
  --layout column_major --runs 20 --plan-builds 1
P="llm:4096x4096:s0.50:uniform llm:4096x4096:s0.70:uniform llm:4096x4096:s0.80:uniform llm:4096x4096:s0.90:uniform llm:4096x4096:s0.95:uniform llm:14336x4096:s0.50:uniform llm:14336x4096:s0.70:uniform llm:14336x4096:s0.80:uniform llm:14336x4096:s0.90:uniform llm:14336x4096:s0.95:uniform"
run prefill-column-major $b/tcsparse bench $P --methods tca,cublas_dense --precisions fp16 --spmm-n 256,1024,2048 \
  --layout column_major --runs 10 --plan-builds 1
run prefill-column-major-old $b/tcsparse-old bench $P --methods tca --precisions fp16 --spmm-n 1024 \
  --layout column_major --runs 10 --plan-builds 1
run dlmc-column-major $b/tcsparse bench .mx/dlmc --methods tca,cusparse,cublas_dense --precisions fp16 \
  --spmm-n 256,2048 --layout column_major --runs 10 --plan-builds 3
run dlmc-column-major-old $b/tcsparse-old bench .mx/dlmc --methods tca --precisions fp16 \
  --spmm-n 256,2048 --layout column_major --runs 10 --plan-builds 3
V="llm:4096x4096:s0.70:uniform llm:11008x4096:s0.70:uniform llm:4096x11008:s0.70:uniform llm:14336x4096:s0.70:uniform llm:4096x4096:s0.90:uniform llm:11008x4096:s0.90:uniform llm:4096x11008:s0.90:uniform llm:14336x4096:s0.90:uniform"
run sweep-chunks $b/tcsparse bench $V --methods tca --param kernel=tiles --precisions fp16 --spmm-n 8,16,64 \
  --layout row_major --runs 20 --plan-builds 1 --variant c256:chunk_columns=256 --variant c512:chunk_columns=512 \
  --variant c1024:chunk_columns=1024 --variant c2048:chunk_columns=2048
python3 .exp/now/decode_table.py $R/decode-row-major.jsonl $R/decode-row-major-old.jsonl $R/decode-column-major.jsonl > $R/decode-summary.txt
tail -30 $R/decode-summary.txt
python3 .exp/now/dlmc_table.py $R/dlmc-column-major.jsonl $R/dlmc-column-major-old.jsonl | tee $R/dlmc-summary.txt
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r

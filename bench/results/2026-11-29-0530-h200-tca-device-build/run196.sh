#!/usr/bin/env bash
# Run 196: kernel=auto's count of the stored tiles at up to 16 columns (count_stored_tiles) on
# several threads (row blocks split between them): the decode plans' build on the LLM weights
# (n = 16, row-major, 3 builds each) against run 194's single-threaded count; the tca layout GPU
# tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run196.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
SECONDS=0
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests \
    --gtest_filter='SpmmLayouts.Tca*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests196.txt; rm $R/tests-*.txt
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.70 0.90; do W="$W llm:$shape:s$s:uniform"; done
done
SECONDS=0
timeout 100 $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 16 --layout row_major \
  --runs 20 --plan-builds 3 --output $R/llm196.jsonl > $R/llm196.txt 2>&1
echo "llm rc $? [$SECONDS s]"
python3 bench/results/2026-11-29-0530-h200-tca-device-build/plan_build_summary.py $R/llm196.jsonl | tee $R/plan-build-summary196.txt
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r

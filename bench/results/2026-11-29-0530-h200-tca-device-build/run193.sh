#!/usr/bin/env bash
# Run 193: tca kernel=tiles with its layout built on the GPU (build=device, new default) against the
# host build (build=host): GPU tests of tca (every kernel and parameter set, the device layout
# against the host builder's, SpMM layouts, conformance, apply promises, auto plans), memcheck of the
# device build; plan build on the DLMC rn50 and transformer matrices at 90 % (n = 256 and 2048,
# column-major, 3 builds each, both builds side by side, cuSPARSE and dense cuBLAS beside), and the
# decode weights at n = 16 (row-major) to see that the product did not change.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run193.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
SECONDS=0
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests \
    --gtest_filter='*SpmmLayouts*:*tca*:*Tca*:*Conformance*:*ApplyPromises*:*AutoPlan*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/gpu-tests193.txt; rm $R/tests-*.txt
SECONDS=0
timeout 120 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='SpmmLayouts.TcaTilesLayoutBuiltOnTheGpu*:SpmmLayouts.TcaTilesSplitK*' --gtest_brief=1 > $R/memcheck193.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $R/memcheck193.txt
SECONDS=0
timeout 200 $b/tcsparse bench .mx/dlmc --methods tca,cusparse,cublas_dense --precisions fp16 --spmm-n 256,2048 \
  --layout column_major --runs 10 --plan-builds 3 --variant host:kernel=tiles,build=host \
  --output $R/dlmc193-column-major.jsonl > $R/dlmc193-column-major.txt 2>&1
echo "dlmc rc $? [$SECONDS s]"
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.70 0.90; do W="$W llm:$shape:s$s:uniform"; done
done
SECONDS=0
timeout 100 $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 16,256 --layout row_major \
  --runs 20 --plan-builds 3 --variant host:kernel=tiles,build=host --output $R/llm193.jsonl > $R/llm193.txt 2>&1
echo "llm rc $? [$SECONDS s]"
python3 bench/results/2026-11-29-0530-h200-tca-device-build/plan_build_summary.py $R/dlmc193-column-major.jsonl $R/llm193.jsonl | tee $R/plan-build-summary193.txt
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r

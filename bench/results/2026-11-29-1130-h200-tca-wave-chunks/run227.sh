#!/usr/bin/env bash
# Run 227: a new tiles parameter, slice_columns (8 / 16 / 32 / 64; auto: the narrowest that holds
# n, 64 above). 1. the GPU tests of tca and the arch layer (slices of 8 and 64 whatever n among
# them); 2. the 150 DLMC matrices at 90 % (.mx/dlmc), n = 256 and 2048, column-major: tca
# (auto), slice variants 8 / 16 / 32 and dense cuBLAS, one round; 3. the 4 LLM shapes at 90 %
# (uniform), n = 256 and 1024, row-major, the same variants.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run227.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/tcsparse_gpu_tests.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='SpmmLayouts.*:*Conformance*tca*:*ApplyPromises*tca*:*FromDeviceCsr*tca*:ArchClusterTest.*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A10 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
V=""
for s in 8 16 32; do V="$V --variant s$s:kernel=tiles,slice_columns=$s"; done
timeout 280 $b/tcsparse bench .mx/dlmc --methods tca,cublas_dense --precisions fp16 --spmm-n 256,2048 \
  --layout column_major --runs 10 $V --output $R/slices-dlmc.jsonl > /dev/null 2>&1
echo "dlmc rc $? [$SECONDS s]"
W=""; for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do W="$W llm:$shape:s0.90:uniform"; done
timeout 200 $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 256,1024 \
  --layout row_major --runs 10 $V --output $R/slices-llm.jsonl > /dev/null 2>&1
echo "llm rc $? [$SECONDS s]"
python3 bench/results/2026-11-29-1130-h200-tca-wave-chunks/summarize_slices.py $R
cd $R && tar czf $OUT/run227-results.tgz . && cd - > /dev/null && rm -rf $R

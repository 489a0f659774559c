#!/usr/bin/env bash
# Run 173: the review mend (one runs_sm90_code predicate, product_from_global, the chunked
# long-row dot falling back itself). 1. GPU tests of csr_overlap, csr_full_overlap, the device
# CSR check and plans from device CSR (12 shards); 2. memcheck of the merge-tile, long-row and
# auto tests; 3. the three merge-tile matrices and pruned_16k, every precision, against cuSPARSE.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run173.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in tcsparse tcsparse_gpu_tests; do xz -dc .device-bin/$f.xz > $b/$f; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*DeviceCsrView*:*FromDevice*:*from_device*:*CsrOverlap*:*csr_overlap*:*FullOverlap*:*full_overlap*'
pids=()
for s in 0 1 2 3 4 5 6 7 8 9 10 11; do
  GTEST_TOTAL_SHARDS=12 GTEST_SHARD_INDEX=$s timeout 360 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.AutoTakes*:CsrOverlapGpu.LongRow*:CsrOverlapGpu.MergeTiles*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
timeout 150 $b/tcsparse bench --methods cusparse,csr_overlap --runs 20 gen:rmat:scale=20,edge_factor=16,seed=3 \
  gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=20000,exponent=2,seed=5 \
  gen:random:rows=1000000,cols=1000000,dist=uniform,min=1,max=39,seed=4 gen:pruned:rows=16384,cols=16384,sparsity=0.9,seed=9 --output $R/merge-matrices.jsonl > $R/merge-matrices.txt 2>&1
echo "bench rc $? [$SECONDS s]"; grep -E "^\|" $R/merge-matrices.txt | head -40
gzip -f $R/*.jsonl $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

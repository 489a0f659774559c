#!/usr/bin/env bash
# Run 343: run 342's slowdown taken apart. The builder now takes a bank group of the next part
# in a part's last 16 nonzeros (fewer repeated bank groups) and fills a window's groups by their
# distance from the start of the run that holds them. "new": that build (each warp waits for a
# part where its run first reads it); "waitall": the same layout, every warp waiting for all of
# B before its first group (the kernel's wait_for_parts(first_group) -> (end_group)); "base":
# 905bc14. The 16 LLM weights at 90 / 95 %, n = 8 / 16 / 32, row-major, dense cuBLAS in the same
# runs, two passes; then the gather GPU tests (8 shards) and memcheck on them.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run343.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=bench/results/2026-11-30-1200-h200-tca-gather-resident/summarize.py
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1 2; do
  for v in new waitall base; do
    SECONDS=0
    bin=$b/tcsparse; [ $v != new ] && bin=$b/tcsparse_$v
    timeout 150 $bin bench $(weights 0.90 0.95) --methods tca,cublas_dense --precisions fp16 \
      --spmm-n 32,16,8 --layout row_major --runs 20 --output $R/$v-$pass.jsonl > $R/bench-$v-$pass.txt 2>&1
    echo "bench $v pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-$v-$pass.txt
  done
done
for v in new waitall base; do echo "== $v"; python3 $S $R $v- 2>&1 | grep -v "shape (" | tail -6; done
for v in new waitall base; do python3 $S $R $v- 2>&1 | grep -E "(14336x4096|4096x4096):s0.90:uniform +16" | sed "s/^/$v /"; done
cd $R && tar czf $OUT/run343-records.tar.gz *.jsonl bench-*.txt; cd - > /dev/null
SECONDS=0
F='*TcaGather*:*Conformance*tca*'
pids=()
for s in $(seq 0 7); do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt | gzip -c > $OUT/run343-gpu-tests.txt.gz
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaGather*' --gtest_brief=1 > $OUT/run343-memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/run343-memcheck.txt | tail -3

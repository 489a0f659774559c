#!/usr/bin/env bash
# Run 195: the final code: build=host (and build=auto below 16384 nonzeros) uploads the host layout
# into the plan's pool with asynchronous copies and one wait (runs 193-194 used two synchronous
# uploads). GPU tests of tca (every kernel and parameter set, SpMM layouts), memcheck of the
# layout tests; plan build on the DLMC matrices at n = 256 (default and build=host).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run195.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests \
    --gtest_filter='*SpmmLayouts*:*Tca*:*tca*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/gpu-tests195.txt; rm $R/tests-*.txt
SECONDS=0
timeout 100 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='SpmmLayouts.TcaTilesLayoutBuiltOnTheGpu*:SpmmLayouts.TcaTilesSplitK*:SpmmLayouts.TcaAuto*' --gtest_brief=1 > $R/memcheck195.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $R/memcheck195.txt
SECONDS=0
timeout 150 $b/tcsparse bench .mx/dlmc --methods tca --precisions fp16 --spmm-n 256 --layout column_major \
  --runs 10 --plan-builds 3 --variant host:kernel=tiles,build=host \
  --output $R/dlmc195-column-major.jsonl > $R/dlmc195-column-major.txt 2>&1
echo "dlmc rc $? [$SECONDS s]"
python3 bench/results/2026-11-29-0530-h200-tca-device-build/plan_build_summary.py $R/dlmc195-column-major.jsonl | tee $R/plan-build-summary195.txt
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r

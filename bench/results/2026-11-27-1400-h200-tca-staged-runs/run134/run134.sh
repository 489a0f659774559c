#!/usr/bin/env bash
# Run 134: the final build of this stop (run 133's kernel with kernel=auto's new row-major threshold
# at 9-16 columns and the blocks-an-SM constant folded): tca and SpMM-layout GPU tests, memcheck of
# the tiles tests, and a decode spot check (auto) on two weights.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run134.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter='*SpmmLayouts*:*tca*:*Tca*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 60 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*:SpmmLayouts.TcaAuto*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $R/memcheck.txt
timeout 60 $b/tcsparse bench llm:4096x4096:s0.90:uniform llm:11008x4096:s0.95:uniform --methods tca,cublas_dense \
  --precisions fp16 --spmm-n 8,16 --layout row_major --runs 20 --plan-builds 1 --output $R/decode-auto.jsonl > $R/decode-auto.txt 2>&1
echo "decode-auto rc $?"
python3 -c "
import json
for l in open('$R/decode-auto.jsonl'):
  r=json.loads(l); print(r['matrix'], r['n'], r['method'], r['details'].get('kernel',''), round(r['median_ms']*1000,1), r['check_passed'])"
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r

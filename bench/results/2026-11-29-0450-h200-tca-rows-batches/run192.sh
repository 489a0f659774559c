#!/usr/bin/env bash
# Run 192: tca rows kernel with batches of 4 or 8 nonzeros a lane in flight (nonzeros_in_flight,
# new): GPU tests of tca (SpMM layouts with every kernel and parameter set), memcheck of the rows
# kernels; decode widths on the issue 11 LLM weights (fp16, n = 8 and 16, row-major) against dense
# cuBLAS with the rows kernel at 1 / 4 / 8 nonzeros in flight and the tiles kernel; Nsight Compute
# of the rows kernels on 11008 x 4096 at 90 %, n = 16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run192.log) 2>&1
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
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='SpmmLayouts.TcaStats*:SpmmLayouts.TcaAuto*:SpmmLayouts.CusparseCublasDenseAndTca*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $R/memcheck.txt
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.70 0.80 0.90 0.95; do W="$W llm:$shape:s$s:uniform"; done
  W="$W llm:$shape:s0.70:skewed llm:$shape:s0.90:skewed"
done
SECONDS=0
timeout 150 $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 8,16 \
  --layout row_major --runs 20 --plan-builds 1 --variant tiles:kernel=tiles --variant rows:kernel=rows \
  --variant b4:kernel=rows,nonzeros_in_flight=4 --variant b8:kernel=rows,nonzeros_in_flight=8 \
  --output $R/decode-row-major.jsonl > $R/decode-row-major.txt 2>&1
echo "decode-row-major rc $? [$SECONDS s]"
python3 bench/results/2026-11-29-0400-h200-tca-panels/decode_summary.py $R/decode-row-major.jsonl > $R/decode-summary.txt
cat $R/decode-summary.txt
for v in 1 4 8; do
  k=tca_rows_kernel; [ $v != 1 ] && k=tca_rows_batched
  timeout 60 ncu --clock-control none -k regex:$k --launch-skip 3 -c 1 --section SpeedOfLight --section WarpStateStats \
    --section Occupancy --section MemoryWorkloadAnalysis $b/tcsparse bench llm:11008x4096:s0.90:uniform --methods tca \
    --param kernel=rows --param nonzeros_in_flight=$v --precisions fp16 --spmm-n 16 --layout row_major --runs 2 \
    --plan-builds 1 > $R/ncu-in-flight-$v.txt 2>&1
  echo "ncu $v rc $?"; grep -E "Duration|DRAM Throughput|Warp Cycles Per Issued|Achieved Occupancy|Registers Per|L1/TEX Hit" $R/ncu-in-flight-$v.txt | head -8
done
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r

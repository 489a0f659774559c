#!/usr/bin/env bash
# Run 191: tca rows kernel with a lane pair a nonzero (lanes_per_nonzero=2, new) and kernel=panels with its split-K sum loads in flight: GPU tests of tca (every kernel and parameter set, SpMM layouts,
# conformance, apply promises, auto plans), memcheck / racecheck / synccheck of the panels tests;
# then decode widths on the issue 11 LLM weights (fp16, n = 8 and 16, row-major and column-major)
# against dense cuBLAS, with the tiles, rows and panels kernels (panels of 512, 1024, 2048 columns)
# side by side.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run191.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
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
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
for tool in memcheck racecheck synccheck; do
  SECONDS=0
  timeout 100 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests \
    --gtest_filter='SpmmLayouts.TcaPanels*' --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; tail -3 $R/$tool.txt
done
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.70 0.80 0.90 0.95; do W="$W llm:$shape:s$s:uniform"; done
  W="$W llm:$shape:s0.70:skewed llm:$shape:s0.90:skewed"
done
run() { local name=$1; shift; SECONDS=0; timeout 150 "$@" --output $R/$name.jsonl > $R/$name.txt 2>&1; echo "$name rc $? [$SECONDS s]"; }
run decode-row-major $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 8,16 \
  --layout row_major --runs 20 --plan-builds 1 --variant tiles:kernel=tiles --variant rows1:kernel=rows,lanes_per_nonzero=1 \
  --variant rows2:kernel=rows,lanes_per_nonzero=2 --variant panels:kernel=panels \
  --variant p2048:kernel=panels,panel_columns=2048
python3 bench/results/2026-11-29-0400-h200-tca-panels/decode_summary.py $R/decode-row-major.jsonl > $R/decode-summary.txt
cat $R/decode-summary.txt
for k in panels rows_pairs rows_kernel; do
  p="kernel=rows"; [ $k = panels ] && p="kernel=panels"; [ $k = rows_kernel ] && p="kernel=rows,lanes_per_nonzero=1"
  timeout 60 ncu --clock-control none -k regex:tca_${k} -c 1 --section SpeedOfLight --section WarpStateStats \
    --section Occupancy --section MemoryWorkloadAnalysis $b/tcsparse bench llm:11008x4096:s0.95:uniform --methods tca \
    --param $p --precisions fp16 --spmm-n 16 --layout row_major --runs 1 --plan-builds 1 > $R/ncu-$k.txt 2>&1
  echo "ncu $k rc $?"; grep -E "Duration|Throughput|Warp Cycles Per Issued|Achieved Occupancy|Stall|L1/TEX Hit|L2 Hit" $R/ncu-$k.txt | head -20
done
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r

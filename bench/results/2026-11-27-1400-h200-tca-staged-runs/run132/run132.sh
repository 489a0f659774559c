#!/usr/bin/env bash
# Run 132: tca kernel=tiles with byte offsets in the table and 32-bit block indices; variants b2 (2 blocks an SM at <= 16 columns), p2 (2 tiles a load), b2p2.
# segments ahead (a run longer than its stage is read past it from global memory). GPU tests of
# tca and the SpMM layouts, memcheck and racecheck of the tiles tests; decode (row-major n = 8-64)
# against dense cuBLAS with the previous kernel (tcsparse-old) and the 2-blocks-an-SM variant (b2)
# in the same run; chunk sweeps; DLMC at n = 256; prefill n = 1024 on two shapes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run132.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 240 $b/tcsparse_gpu_tests --gtest_filter='*SpmmLayouts*:*tca*:*Tca*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 100 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*:SpmmLayouts.TcaAuto*' --gtest_brief=1 > $R/memcheck.txt 2>&1
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
run() { local name=$1; shift; SECONDS=0; timeout 150 "$@" --output $R/$name.jsonl > $R/$name.txt 2>&1; echo "$name rc $? [$SECONDS s]"; }
run decode-row-major $b/tcsparse bench $W --methods tca,cublas_dense --variant tiles:kernel=tiles --precisions fp16 \
  --spmm-n 8,16,32,64 --layout row_major --runs 20 --plan-builds 1
for v in b2 p2 b2p2; do
run decode-row-major-variant-$v $b/tcsparse-$v bench $W --methods tca --param kernel=tiles --precisions fp16 \
  --spmm-n 8,16,32,64 --layout row_major --runs 20 --plan-builds 1
done
run decode-row-major-old $b/tcsparse-old bench $W --methods tca --param kernel=tiles --precisions fp16 \
  --spmm-n 8,16,32,64 --layout row_major --runs 20 --plan-builds 1
P="llm:4096x4096:s0.70:uniform llm:4096x4096:s0.95:uniform llm:14336x4096:s0.70:uniform llm:14336x4096:s0.95:uniform"
run prefill-column-major $b/tcsparse bench $P --methods tca,cublas_dense --precisions fp16 --spmm-n 1024 \
  --layout column_major --runs 10 --plan-builds 1
python3 .exp/now/decode_table.py $R/decode-row-major.jsonl $R/decode-row-major-variant-*.jsonl $R/decode-row-major-old.jsonl > $R/decode-summary.txt
tail -22 $R/decode-summary.txt
for f in $R/prefill-column-major.jsonl; do python3 -c "import json,sys
for l in open(sys.argv[1]):
 r=json.loads(l); print(sys.argv[1].split('/')[-1], r['matrix'], r['method'], round(r['median_ms']*1000,1))" $f; done
M="smsp__inst_executed.sum,sm__cycles_elapsed.avg,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
for bin in tcsparse tcsparse-b2; do for sp in 0.70 0.90; do
  timeout 60 ncu --clock-control none -k regex:tca_tiles -s 3 -c 1 --metrics "$M" $b/$bin bench llm:4096x4096:s$sp:uniform \
    --methods tca --param kernel=tiles --precisions fp16 --spmm-n 16 --layout row_major --runs 2 --plan-builds 1 > $R/stalls-$bin-$sp.txt 2>&1
  echo "== $bin $sp"; grep -E "inst_executed|cycles_elapsed|stalled" $R/stalls-$bin-$sp.txt | awk '$NF+0 > 0.3 || /inst_exec|cycles/' | sed -e 's/smsp__average_warps_issue_stalled_//' -e 's/_per_issue_active.ratio//' | awk '{print $1, $NF}' | paste -s -d' '
done; done
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r

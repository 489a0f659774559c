#!/usr/bin/env bash
# Run 128: tca kernel=tiles with each warp's runs staged in shared memory by cp.async, two
# segments ahead (a run longer than its stage is read past it from global memory). GPU tests of
# tca and the SpMM layouts, memcheck and racecheck of the tiles tests; decode (row-major n = 8-64)
# against dense cuBLAS with the previous kernel (tcsparse-old) and the 2-blocks-an-SM variant (b2)
# in the same run; chunk sweeps; DLMC at n = 256; prefill n = 1024 on two shapes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run128.log) 2>&1
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
run decode-row-major-variant-b2 $b/tcsparse-b2 bench $W --methods tca --param kernel=tiles --precisions fp16 \
  --spmm-n 8,16,32,64 --layout row_major --runs 20 --plan-builds 1
run decode-row-major-old $b/tcsparse-old bench $W --methods tca --param kernel=tiles --precisions fp16 \
  --spmm-n 8,16,32,64 --layout row_major --runs 20 --plan-builds 1
V="llm:4096x4096:s0.70:uniform llm:11008x4096:s0.70:uniform llm:4096x11008:s0.70:uniform llm:14336x4096:s0.70:uniform llm:4096x4096:s0.90:uniform llm:11008x4096:s0.90:uniform llm:4096x11008:s0.90:uniform llm:14336x4096:s0.90:uniform"
for bin in tcsparse tcsparse-b2; do
  run sweep-chunks-$bin $b/$bin bench $V --methods tca --param kernel=tiles --precisions fp16 --spmm-n 8,16,64 \
    --layout row_major --runs 20 --plan-builds 1 --variant c256:chunk_columns=256 --variant c512:chunk_columns=512 \
    --variant c1024:chunk_columns=1024 --variant c2048:chunk_columns=2048
done
run dlmc-column-major $b/tcsparse bench .mx/dlmc --methods tca,cusparse,cublas_dense --precisions fp16 \
  --spmm-n 256 --layout column_major --runs 10 --plan-builds 3
P="llm:4096x4096:s0.70:uniform llm:4096x4096:s0.95:uniform llm:14336x4096:s0.70:uniform llm:14336x4096:s0.95:uniform"
run prefill-column-major $b/tcsparse bench $P --methods tca,cublas_dense --precisions fp16 --spmm-n 1024 \
  --layout column_major --runs 10 --plan-builds 1
run prefill-column-major-old $b/tcsparse-old bench $P --methods tca --precisions fp16 --spmm-n 1024 \
  --layout column_major --runs 10 --plan-builds 1
python3 .exp/now/decode_table.py $R/decode-row-major.jsonl $R/decode-row-major-variant-b2.jsonl $R/decode-row-major-old.jsonl > $R/decode-summary.txt
tail -22 $R/decode-summary.txt
for bin in tcsparse tcsparse-b2; do
  python3 - $R/sweep-chunks-$bin.jsonl <<'PY'
import json, sys, collections, math
t = collections.defaultdict(dict)
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get('median_ms'): t[(r['matrix'].split(':')[1] + ':' + r['matrix'].split(':')[2], r['n'])][r.get('variant') or 'auto'] = r['median_ms'] * 1000
vs = ['auto', 'c256', 'c512', 'c1024', 'c2048']
print(sys.argv[1].split('/')[-1]); print('case', *vs, sep='\t')
for k in sorted(t): print(k[0], k[1], *[f"{t[k].get(v, float('nan')):.1f}" for v in vs], sep='\t')
PY
done
python3 .exp/now/dlmc_table.py $R/dlmc-column-major.jsonl | tee $R/dlmc-summary.txt
grep -h "median\|llm" $R/prefill-*.txt | head -20
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r

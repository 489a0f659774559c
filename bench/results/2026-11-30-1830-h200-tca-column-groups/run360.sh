#!/usr/bin/env bash
# Run 360: gather_transpose_b stores relative to the region's base (a region is whole swizzle
# periods, so the 16 tiles' offsets are the same in every region and computed once: `offs`,
# run360-region-offsets.patch) against ae13d0b (`head`). 1. the column-major gather GPU tests of
# offs, memcheck and synccheck on them; 2. auto on the 16 LLM weights at 90 / 95 %, n = 8 / 16 /
# 32, column-major, head and offs alternating, two passes; 3. Nsight Compute of offs on 14336 x
# 4096 at 90 %, n = 16, column-major (as run 357).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run360.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='SpmmLayouts.TcaGather*:SpmmLayouts.TcaAuto*:*Conformance*tca*'
pids=()
for s in $(seq 0 7); do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/gpu_tests_offs --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt | gzip -c > $OUT/run360-gpu-tests.txt.gz
for tool in memcheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool $b/gpu_tests_offs --gtest_filter='SpmmLayouts.TcaGatherGivesTheSameBitsWithColumnMajor*' --gtest_brief=1 > $OUT/run360-$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/run360-$tool.txt | tail -3
done
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for round in 1 2; do for v in head offs; do
  SECONDS=0
  timeout 60 $b/tcsparse_$v bench $(weights 0.90 0.95) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 32,16,8 --layout column_major --runs 20 --output $R/$v-$round.jsonl > $R/bench-$v-$round.txt 2>&1
  echo "bench $v $round rc $? [$SECONDS s]"
done; done
python3 - $R <<'PY'
import collections, glob, json, math, statistics, sys
R = sys.argv[1]
t = collections.defaultdict(list)
for path in sorted(glob.glob(R + '/*-[12].jsonl')):
    v = path.split('/')[-1].split('-')[0]
    for line in open(path):
        r = json.loads(line)
        if r.get('error') or not r.get('check_passed', True): print('BAD', v, r['matrix'], r.get('n'), r.get('error')); continue
        label = 'dense' if r['method'] == 'cublas_dense' else v
        t[(r['matrix'], r['n'], label)].append(r['median_ms'] * 1e3)
med = {k: statistics.median(x) for k, x in t.items()}
print('%-30s %3s %7s %14s %14s %7s' % ('matrix', 'n', 'dense', 'head', 'offs', 'o/h'))
keys = sorted({k[:2] for k in med}, key=lambda k: (k[1], k[0]))
for m, n in keys:
    d, b, g = med.get((m, n, 'dense')), med.get((m, n, 'head')), med.get((m, n, 'offs'))
    if d and b and g: print('%-30s %3d %7.1f %6.1f %5.2fx %6.1f %5.2fx %6.3f' % (m, n, d, b, d / b, g, d / g, b / g))
for n in (8, 16, 32):
    for s in ('s0.90', 's0.95'):
        ks = [k for k in keys if k[1] == n and ':' + s + ':' in k[0] and (k[0], n, 'offs') in med]
        gm = lambda v: math.exp(sum(math.log(med[(m, n, 'dense')] / med[(m, n, v)]) for m, _ in ks) / len(ks))
        if ks: print('n %2d %s geomean over dense: head %.2fx offs %.2fx' % (n, s, gm('head'), gm('offs')))
PY
cd $R && tar czf $OUT/run360-records.tar.gz *.jsonl bench-*.txt; cd - > /dev/null
w=llm:14336x4096:s0.90:uniform
timeout 200 ncu --clock-control none --kernel-name regex:tca_gather_kernel --launch-skip 3 --launch-count 1 \
  --set full --import-source no -o $R/prof-offs $b/tcsparse_offs bench $w --methods tca --precisions fp16 \
  --spmm-n 16 --layout column_major --runs 5 --plan-builds 1 --param kernel=gather > $R/ncu-offs.log 2>&1
echo "ncu rc $?"; tail -1 $R/ncu-offs.log
ncu --import $R/prof-offs.ncu-rep --page details --csv > $R/run360-ncu-offs-details.csv 2>&1
ncu --import $R/prof-offs.ncu-rep --page source --csv --print-source sass > $R/run360-ncu-offs-source.csv 2>&1
grep -E '"(Duration|Executed Ipc Active|Registers Per Thread)"' $R/run360-ncu-offs-details.csv | awk -F'","' '{print $(NF-2) " = " $NF " " $(NF-1)}'
cd $R && tar czf $OUT/run360-ncu.tar.gz run360-ncu-*.csv

#!/usr/bin/env bash
# Run 348: where kernel=gather's time goes with column-major B: run 347's build ("new") against
# the same build with the column-major staging of B skipped ("nostage": C is wrong, the time is
# what counts), and row-major B with "new" for reference; 4096 x 4096 and 14336 x 4096 at 90 %,
# n = 16, two passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run348.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
M="llm:4096x4096:s0.90:uniform llm:14336x4096:s0.90:uniform"
for pass in 1 2; do
  for v in new nostage; do
    for layout in column_major row_major; do
      bin=$b/tcsparse; [ $v != new ] && bin=$b/tcsparse_$v
      timeout 60 $bin bench $M --methods tca,cublas_dense --precisions fp16 --spmm-n 16 --layout $layout \
        --runs 20 --variant gather:kernel=gather --output $R/$v-$layout-$pass.jsonl > $R/bench-$v-$layout-$pass.txt 2>&1
      echo "$v $layout pass $pass rc $?"
    done
  done
done
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
t = collections.defaultdict(list)
for f in glob.glob(sys.argv[1] + '/*.jsonl'):
    v, layout = f.split('/')[-1].split('-')[:2]
    for l in open(f):
        r = json.loads(l)
        t[(r['matrix'], layout, v, r['method'] + ('[' + r['variant'] + ']' if r.get('variant') else ''))].append(r['median_ms'] * 1e3)
for k in sorted(t): print(*k, '%.1f us' % statistics.median(t[k]))
PY
cd $R && tar czf $OUT/run348-records.tar.gz *.jsonl; cd - > /dev/null

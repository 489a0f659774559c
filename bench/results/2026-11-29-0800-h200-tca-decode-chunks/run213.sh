#!/usr/bin/env bash
# Run 213: tca tiles at decode widths, chunk width (split-K) against the weight's shape: the
# default 512 columns a chunk against 1024 / 2048 / 4096 (variants, interleaved in one process),
# 4 LLM weight shapes x 70 / 80 / 90 % (uniform), n = 8 / 16 / 32 / 64, row-major B, and dense
# cuBLAS; two rounds. Binary of commit db6d68d (tca as in 9410703).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run213.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.70 0.80 0.90; do W="$W llm:$shape:s$s:uniform"; done
done
SECONDS=0
for round in 1 2; do
  timeout 250 $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 8,16,32,64 \
    --layout row_major --runs 20 --param kernel=tiles --variant c1024:chunk_columns=1024 \
    --variant c2048:chunk_columns=2048 --variant c4096:chunk_columns=4096 \
    --output $R/chunks-$round.jsonl > /dev/null 2>&1
  echo "round $round rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(R + '/chunks-*.jsonl')):
    for line in open(f):
        r = json.loads(line)
        label = r.get('variant') or r['method']
        if r['method'] == 'cublas_dense': label = 'dense'
        elif not r.get('variant'): label = 'c512'
        t[(r['matrix'], r['n'])][label].append(r['median_ms'] * 1e3)
print('weight n: us (median of rounds) dense / c512 / c1024 / c2048 / c4096; speedup over dense of the best')
for (m, n), v in sorted(t.items()):
    med = {k: statistics.median(x) for k, x in v.items()}
    best = min((k for k in med if k != 'dense'), key=lambda k: med[k])
    print('%-28s %3d ' % (m, n) + ' '.join('%s %6.1f' % (k, med.get(k, 0)) for k in ('dense', 'c512', 'c1024', 'c2048', 'c4096')),
          ' best %s %.2fx (c512 %.2fx)' % (best, med['dense'] / med[best], med['dense'] / med['c512']))
PY
cd $R && tar czf $OUT/run213-results.tgz . && cd - > /dev/null

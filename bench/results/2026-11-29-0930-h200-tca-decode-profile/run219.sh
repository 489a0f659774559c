#!/usr/bin/env bash
# Run 219: split_k=auto (clusters where they keep as many blocks running at once: 2 chunks on the
# H200) against split_k=global where n is wide: the 150 DLMC rn50 and transformer matrices at
# 90 % (.mx/dlmc: dlmc/{rn50,transformer}/magnitude_pruning/0.9 of the repository's matrices),
# n = 256 and 2048, column-major, two rounds; the 8 LLM weights at 95 %, n = 1024, row-major.
# tca (default) with the variant global interleaved, and dense cuBLAS.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run219.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for round in 1 2; do
  timeout 250 $b/tcsparse bench .mx/dlmc --methods tca,cublas_dense --precisions fp16 --spmm-n 256,2048 \
    --layout column_major --runs 10 --variant global:split_k=global \
    --output $R/dlmc-$round.jsonl > /dev/null 2>&1
  echo "dlmc round $round rc $? [$SECONDS s]"
done
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do for d in uniform skewed; do W="$W llm:$shape:s0.95:$d"; done; done
timeout 200 $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 1024 \
  --layout row_major --runs 10 --variant global:split_k=global --output $R/prefill.jsonl > /dev/null 2>&1
echo "prefill rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, collections, statistics, math
R = sys.argv[1]
gm = lambda x: math.exp(sum(map(math.log, x)) / len(x))
for pattern, name in ((R + '/dlmc-*.jsonl', 'DLMC 90 %'), (R + '/prefill.jsonl', 'LLM 95 % prefill')):
    t = collections.defaultdict(lambda: collections.defaultdict(list)); split = {}
    for f in sorted(glob.glob(pattern)):
        for line in open(f):
            r = json.loads(line)
            if r.get('error'): print('error', r['matrix'], r.get('variant'), r['error'][:200]); continue
            label = 'dense' if r['method'] == 'cublas_dense' else (r.get('variant') or 'auto')
            t[(r['matrix'], r['n'])][label].append(r['median_ms'])
            if label == 'auto': split[(r['matrix'], r['n'])] = (r['details'] or {}).get('split_k')
    for n in sorted({k[1] for k in t}):
        keys = [k for k in t if k[1] == n and all(l in t[k] for l in ('auto', 'global', 'dense'))]
        med = {k: {l: statistics.median(v) for l, v in t[k].items()} for k in keys}
        ratio = [med[k]['global'] / med[k]['auto'] for k in keys]
        cl = [k for k in keys if split.get(k) == 'cluster']
        rc = [med[k]['global'] / med[k]['auto'] for k in cl]
        print('%s n=%d: %d matrices, %d with clusters; global/auto geomean %.3f (min %.3f max %.3f); on the cluster ones %s; auto over dense %.3f, global over dense %.3f' % (
            name, n, len(keys), len(cl), gm(ratio), min(ratio), max(ratio),
            ('%.3f (%.3f-%.3f)' % (gm(rc), min(rc), max(rc))) if rc else '-',
            gm([med[k]['dense'] / med[k]['auto'] for k in keys]), gm([med[k]['dense'] / med[k]['global'] for k in keys])))
PY
cd $R && tar czf $OUT/run219-results.tgz . && cd - > /dev/null && rm -rf $R

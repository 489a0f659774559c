#!/usr/bin/env bash
# Run 230: kTilesTargetWarpsPerSm 32 -> 8 (above 64 columns of B, K is split only until every SM
# has a block). tcsparse_old is commit 2721eca's binary. 1. the GPU tests of tca and the arch
# layer; 2. the 150 DLMC matrices at 90 % (.mx/dlmc), n = 256 and 2048, column-major, and the 4
# LLM shapes at 90 and 95 % (uniform), n = 128 / 256 / 1024, row-major: old and new tca with
# dense cuBLAS, old and new alternating.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run230.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='SpmmLayouts.*:*Conformance*tca*:*ApplyPromises*tca*:*FromDeviceCsr*tca*:ArchClusterTest.*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A10 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
W=""; for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do for s in 0.90 0.95; do W="$W llm:$shape:s$s:uniform"; done; done
for binary in old new; do
  exe=$b/tcsparse; [ $binary = old ] && exe=$b/tcsparse_old
  timeout 200 $exe bench .mx/dlmc --methods tca,cublas_dense --precisions fp16 --spmm-n 256,2048 \
    --layout column_major --runs 10 --output $R/$binary-dlmc.jsonl > /dev/null 2>&1
  echo "$binary dlmc rc $? [$SECONDS s]"
  timeout 200 $exe bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 128,256,1024 \
    --layout row_major --runs 10 --output $R/$binary-llm.jsonl > /dev/null 2>&1
  echo "$binary llm rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import collections, json, math, sys
R = sys.argv[1]
gm = lambda x: math.exp(sum(map(math.log, x)) / len(x))
for suite in ('dlmc', 'llm'):
    t = collections.defaultdict(dict); ch = {}
    for binary in ('old', 'new'):
        for line in open('%s/%s-%s.jsonl' % (R, binary, suite)):
            r = json.loads(line)
            if r.get('error'): print('error', r['matrix'], r['error'][:200]); continue
            label = 'dense' if r['method'] == 'cublas_dense' else binary
            t[(r['matrix'], r['n'])].setdefault(label, r['median_ms'])
            if label != 'dense': ch[(r['matrix'], r['n']), binary] = ((r['details'] or {}).get('slice_columns'), (r['details'] or {}).get('chunks'))
    for n in sorted({k[1] for k in t}):
        keys = [k for k in t if k[1] == n and all(l in t[k] for l in ('old', 'new', 'dense'))]
        x = [t[k] for k in keys]
        changed = [k for k in keys if ch[k, 'old'] != ch[k, 'new']]
        print('%s n=%d (%d, %d changed): new over old %.3f (%.3f-%.3f; changed ones %.3f); over dense old %.3f new %.3f (min %.3f)' % (
            suite, n, len(keys), len(changed), gm([v['old'] / v['new'] for v in x]), min(v['old'] / v['new'] for v in x),
            max(v['old'] / v['new'] for v in x), gm([t[k]['old'] / t[k]['new'] for k in changed]) if changed else 1,
            gm([v['dense'] / v['old'] for v in x]), gm([v['dense'] / v['new'] for v in x]), min(v['dense'] / v['new'] for v in x)))
        if suite == 'llm':
            for k in sorted(keys):
                print('  %-28s n=%4d dense %.4f old %.4f %s new %.4f %s' % (k[0], n, t[k]['dense'], t[k]['old'], ch[k, 'old'], t[k]['new'], ch[k, 'new']))
PY
cd $R && tar czf $OUT/run230-results.tgz . && cd - > /dev/null && rm -rf $R

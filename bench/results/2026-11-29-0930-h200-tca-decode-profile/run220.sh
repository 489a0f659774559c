#!/usr/bin/env bash
# Run 220: the commit of this directory (split_k=auto: clusters for 2 chunks only), binary built
# off the GPU machine: 1. the GPU tests of tca and of the cluster wrappers; memcheck, racecheck and
# synccheck on the split-K tests; 2. tca (default) with the variant split_k=global interleaved,
# and dense cuBLAS: the 150 DLMC matrices at 90 % (.mx/dlmc, as in run 219), n = 256 and 2048,
# column-major; the 8 LLM weights at 70 and 90 %, n = 16, 64 and 256, row-major. One round each.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run220.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='SpmmLayouts.*:*Conformance*tca*:*ApplyPromises*tca*:*FromDeviceCsr*tca*:ArchClusterTest.*:*Tca*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
cat $R/tests-*.txt | grep -E "^\[  SKIPPED|FAILED  \]" | sort | uniq -c | head
grep -h -B2 -A10 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
M='SpmmLayouts.TcaTilesSplitK*:ArchClusterTest.*'
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter="$M" --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -3
done
SECONDS=0
timeout 200 $b/tcsparse bench .mx/dlmc --methods tca,cublas_dense --precisions fp16 --spmm-n 256,2048 \
  --layout column_major --runs 10 --variant global:split_k=global --output $R/dlmc.jsonl > /dev/null 2>&1
echo "dlmc rc $? [$SECONDS s]"
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.70 0.90; do for d in uniform skewed; do W="$W llm:$shape:s$s:$d"; done; done
done
timeout 200 $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 16,64,256 \
  --layout row_major --runs 20 --variant global:split_k=global --output $R/llm.jsonl > /dev/null 2>&1
echo "llm rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, collections, statistics, math
R = sys.argv[1]
gm = lambda x: math.exp(sum(map(math.log, x)) / len(x))
for f, name in (('/dlmc.jsonl', 'DLMC 90 %'), ('/llm.jsonl', 'LLM')):
    t = collections.defaultdict(dict); split = {}
    for line in open(R + f):
        r = json.loads(line)
        if r.get('error'): print('error', r['matrix'], r.get('variant'), r['error'][:200]); continue
        label = 'dense' if r['method'] == 'cublas_dense' else (r.get('variant') or 'auto')
        t[(r['matrix'], r['n'])][label] = r['median_ms']
        if label == 'auto': split[(r['matrix'], r['n'])] = ((r['details'] or {}).get('split_k'), (r['details'] or {}).get('chunks'))
    for n in sorted({k[1] for k in t}):
        keys = [k for k in t if k[1] == n and all(l in t[k] for l in ('auto', 'global', 'dense'))]
        cl = [k for k in keys if split.get(k, (None,))[0] == 'cluster']
        rc = [t[k]['global'] / t[k]['auto'] for k in cl]
        print('%s n=%d: %d matrices, %d with clusters (chunks %s); global/auto on those %s; auto over dense geomean %.3f (min %.3f), global over dense %.3f' % (
            name, n, len(keys), len(cl), sorted({split[k][1] for k in cl}),
            ('%.3f (%.3f-%.3f)' % (gm(rc), min(rc), max(rc))) if rc else '-',
            gm([t[k]['dense'] / t[k]['auto'] for k in keys]), min(t[k]['dense'] / t[k]['auto'] for k in keys),
            gm([t[k]['dense'] / t[k]['global'] for k in keys])))
PY
cd $R && tar czf $OUT/run220-results.tgz . && cd - > /dev/null && rm -rf $R

#!/usr/bin/env bash
# Run 218: the commit of this directory (split_k: auto takes clusters only where they keep as
# many blocks running at once as single blocks, which on the H200 means 2 chunks; the item loop
# of run 217 removed), binary built off the GPU machine: 1. the GPU tests of tca and of the
# cluster wrappers, memcheck / racecheck / synccheck on the split-K tests; 2. the 8 LLM weights
# at 70 and 90 % sparsity, n = 8 / 16 / 32 / 64 / 256, row-major, tca (default) with the variant
# global interleaved, and dense cuBLAS, two rounds.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run218.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='SpmmLayouts.*:*Conformance*tca*:*ApplyPromises*tca*:*FromDeviceCsr*tca*:ArchClusterTest.*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
cat $R/tests-*.txt | grep -E "SKIPPED|FAILED" | sort | uniq | head
grep -h -B2 -A10 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
M='SpmmLayouts.TcaTilesSplitK*:ArchClusterTest.*'
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter="$M" --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -3
done
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.70 0.90; do for d in uniform skewed; do W="$W llm:$shape:s$s:$d"; done; done
done
SECONDS=0
for round in 1 2; do
  timeout 200 $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 8,16,32,64,256 \
    --layout row_major --runs 20 --variant global:split_k=global \
    --output $R/auto-$round.jsonl > /dev/null 2>&1
  echo "round $round rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, collections, statistics, math
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
info = {}
for f in sorted(glob.glob(R + '/auto-*.jsonl')):
    for line in open(f):
        r = json.loads(line)
        if r.get('error'): print('error', r['matrix'], r.get('n'), r.get('variant'), r['error'][:200]); continue
        label = 'dense' if r['method'] == 'cublas_dense' else (r.get('variant') or 'auto')
        t[(r['matrix'], r['n'])][label].append(r['median_ms'] * 1e3)
        d = r.get('details') or {}
        if label != 'dense': info[(r['matrix'], r['n'], label)] = (d.get('kernel'), d.get('chunks'), d.get('split_k'), d.get('blocks_at_once'), d.get('cluster_blocks_at_once'))
g = collections.defaultdict(list)
print('weight n: us (median of rounds) dense / auto / global; auto over dense; global/auto; what auto ran')
for (m, n), v in sorted(t.items()):
    med = {k: statistics.median(x) for k, x in v.items()}
    s = m.split(':')[2]
    for k in ('auto', 'global'):
        if k in med: g[(s, n, k)].append(med['dense'] / med[k])
    print('%-28s %3d dense %6.1f auto %6.1f global %6.1f  %.3fx  g/a %.3f  %s' % (
        m, n, med['dense'], med.get('auto', 0), med.get('global', 0),
        med['dense'] / med['auto'], med['global'] / med['auto'], info.get((m, n, 'auto'))))
gm = lambda x: math.exp(sum(map(math.log, x)) / len(x))
print('geomean (min) speedup over dense: global / auto')
for s in ('s0.70', 's0.90'):
    for n in (8, 16, 32, 64, 256):
        print(s, n, '  '.join('%s %.3f (%.3f)' % (k, gm(g[(s, n, k)]), min(g[(s, n, k)])) for k in ('global', 'auto')))
PY
cd $R && tar czf $OUT/run218-results.tgz . && cd - > /dev/null && rm -rf $R

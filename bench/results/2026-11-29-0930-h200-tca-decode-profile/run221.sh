#!/usr/bin/env bash
# Run 221: tca tiles as a programmatic dependent launch (dependent_launch=auto, on at sm_90: the
# first runs of A copied before griddepcontrol.wait, B / C / split-K scratch after; the grid lets
# the next one launch after its segment loop), binary built off the GPU machine: 1. the GPU tests
# of tca, of the arch layer and of csr_overlap (whose dependent launch now goes through
# arch/launch.cuh); memcheck / racecheck / synccheck on the dependent-launch, split-K and cluster
# tests; 2. the 8 LLM weights at 70 and 90 %, n = 8 / 16 / 32 / 64 / 256, row-major, tca (default)
# with the variant plain:dependent_launch=off interleaved, and dense cuBLAS, two rounds; the 150
# DLMC matrices at 90 % (.mx/dlmc, as in run 219), n = 256 / 2048, column-major, one round.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run221.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='SpmmLayouts.*:*Conformance*tca*:*ApplyPromises*tca*:*FromDeviceCsr*tca*:Arch*:*Tca*:*CsrOverlap*:*csr_overlap*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
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
M='SpmmLayouts.TcaTilesAsADependentLaunch*:SpmmLayouts.TcaTilesSplitK*:ArchClusterTest.*'
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter="$M" --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -3
done
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.70 0.90; do for d in uniform skewed; do W="$W llm:$shape:s$s:$d"; done; done
done
SECONDS=0
for round in 1 2; do
  timeout 200 $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 8,16,32,64,256 \
    --layout row_major --runs 20 --variant plain:dependent_launch=off --output $R/llm-$round.jsonl > /dev/null 2>&1
  echo "llm round $round rc $? [$SECONDS s]"
done
timeout 200 $b/tcsparse bench .mx/dlmc --methods tca,cublas_dense --precisions fp16 --spmm-n 256,2048 \
  --layout column_major --runs 10 --variant plain:dependent_launch=off --output $R/dlmc.jsonl > /dev/null 2>&1
echo "dlmc rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, collections, statistics, math
R = sys.argv[1]
gm = lambda x: math.exp(sum(map(math.log, x)) / len(x))
for pattern, name in ((R + '/llm-*.jsonl', 'LLM'), (R + '/dlmc.jsonl', 'DLMC 90 %')):
    t = collections.defaultdict(lambda: collections.defaultdict(list)); kern = {}
    for f in sorted(glob.glob(pattern)):
        for line in open(f):
            r = json.loads(line)
            if r.get('error'): print('error', r['matrix'], r.get('variant'), r['error'][:200]); continue
            label = 'dense' if r['method'] == 'cublas_dense' else (r.get('variant') or 'auto')
            t[(r['matrix'], r['n'])][label].append(r['median_ms'])
            if label == 'auto': kern[(r['matrix'], r['n'])] = ((r['details'] or {}).get('kernel'), (r['details'] or {}).get('dependent_launch'))
    if name == 'LLM':
        for (m, n), v in sorted(t.items()):
            med = {k: statistics.median(x) * 1e3 for k, x in v.items()}
            if m.split(':')[2] == 's0.70' and n in (8, 16):
                print('%-28s %3d dense %6.1f auto %6.1f plain %6.1f  auto over dense %.3f  plain/auto %.3f %s' % (
                    m, n, med['dense'], med['auto'], med['plain'], med['dense'] / med['auto'], med['plain'] / med['auto'], kern.get((m, n))))
    for s in sorted({k[0].split(':')[2] if name == 'LLM' else '' for k in t}):
        for n in sorted({k[1] for k in t}):
            keys = [k for k in t if k[1] == n and (name != 'LLM' or k[0].split(':')[2] == s)
                    and all(l in t[k] for l in ('auto', 'plain', 'dense')) and kern.get(k, ('',))[0] == 'tiles']
            if not keys: continue
            med = {k: {l: statistics.median(v) for l, v in t[k].items()} for k in keys}
            rp = [med[k]['plain'] / med[k]['auto'] for k in keys]
            print('%s %s n=%d: %d with tiles; plain/auto geomean %.3f (%.3f-%.3f); over dense auto %.3f (min %.3f), plain %.3f (min %.3f)' % (
                name, s, n, len(keys), gm(rp), min(rp), max(rp),
                gm([med[k]['dense'] / med[k]['auto'] for k in keys]), min(med[k]['dense'] / med[k]['auto'] for k in keys),
                gm([med[k]['dense'] / med[k]['plain'] for k in keys]), min(med[k]['dense'] / med[k]['plain'] for k in keys)))
PY
cd $R && tar czf $OUT/run221-results.tgz . && cd - > /dev/null && rm -rf $R

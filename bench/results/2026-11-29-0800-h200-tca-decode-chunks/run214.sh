#!/usr/bin/env bash
# Run 214: tca's decode chunks widened by the wave rule (tcsparse, this commit) against the
# binary of db6d68d (tcsparse_old, 512 columns at every n <= 64): 1. tca's GPU tests, memcheck,
# racecheck; 2. the 8 LLM weight shapes' decode (4 shapes x uniform / skewed at 70 / 90 %),
# n = 8 / 16 / 32 / 64, row-major, tca (kernel auto) and dense cuBLAS, old and new alternating,
# two rounds.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run214.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='SpmmLayouts.*:*Conformance*tca*:*ApplyPromises*tca*:*FromDeviceCsr*tca*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A10 "Failure" $R/tests-*.txt | head -30
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*:SpmmLayouts.TcaAuto*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.70 0.90; do for d in uniform skewed; do W="$W llm:$shape:s$s:$d"; done; done
done
SECONDS=0
for round in 1 2; do
  for v in old new; do
    bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
    timeout 120 $bin bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 8,16,32,64 \
      --layout row_major --runs 20 --output $R/decode-$v-$round.jsonl > /dev/null 2>&1
    echo "decode $v round $round rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, collections, statistics, math
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(R + '/decode-*.jsonl')):
    v = f.split('-')[-2]
    for line in open(f):
        r = json.loads(line)
        key = (r['matrix'], r['n'])
        if r['method'] == 'cublas_dense': t[key]['dense'].append(r['median_ms'])
        else:
            t[key][v].append(r['median_ms'])
            if v == 'new': t[key]['shape'] = [r['details'].get('kernel'), r['details'].get('chunk_columns')]
g = collections.defaultdict(list)
for (m, n), v in sorted(t.items()):
    d = statistics.median(v['dense']); o = statistics.median(v['old']); w = statistics.median(v['new'])
    s = m.split(':')[2]
    g[(s, n, 'old')].append(d / o); g[(s, n, 'new')].append(d / w)
    print('%-30s %2d dense %6.1f old %6.1f new %6.1f us  new/old %.3f  %s' % (m, n, d*1e3, o*1e3, w*1e3, o / w, v['shape']))
print('geomean speedup over dense (old -> new)')
for s in ('s0.70', 's0.90'):
    for n in (8, 16, 32, 64):
        gm = lambda x: math.exp(sum(map(math.log, x)) / len(x))
        print(s, n, '%.3f -> %.3f (min %.3f -> %.3f)' % (gm(g[(s, n, 'old')]), gm(g[(s, n, 'new')]), min(g[(s, n, 'old')]), min(g[(s, n, 'new')])))
PY
cd $R && tar czf $OUT/run214-results.tgz . && cd - > /dev/null && rm -rf $R

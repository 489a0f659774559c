#!/usr/bin/env bash
# Run 228: slice_columns=auto now narrows the slices above 64 columns of B to 32 or 16 while the
# kernel has fewer blocks than the GPU has SMs. 1. the GPU tests of tca and the arch layer;
# memcheck / racecheck on the tiles tests; 2. the 150 DLMC matrices at 90 % (.mx/dlmc),
# n = 256 and 2048, column-major: tca (auto), the variant w64:kernel=tiles,slice_columns=64
# (the previous automatic width), dense cuBLAS and cuSPARSE, one round.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run228.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/tcsparse_gpu_tests.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
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
for tool in memcheck racecheck; do
  timeout 200 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*' --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -3
done
SECONDS=0
timeout 280 $b/tcsparse bench .mx/dlmc --methods tca,cublas_dense,cusparse --precisions fp16 --spmm-n 256,2048 \
  --layout column_major --runs 10 --variant w64:kernel=tiles,slice_columns=64 --output $R/dlmc.jsonl > /dev/null 2>&1
echo "dlmc rc $? [$SECONDS s]"
python3 - $R/dlmc.jsonl <<'PY'
import collections, json, math, sys
gm = lambda x: math.exp(sum(map(math.log, x)) / len(x))
t = collections.defaultdict(dict); width = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get('error'): print('error', r['matrix'], r.get('variant'), r['error'][:200]); continue
    label = r['method'] if r['method'] != 'tca' else (r.get('variant') or 'auto')
    t[(r['matrix'], r['n'])][label] = r['median_ms']
    if label == 'auto': width[(r['matrix'], r['n'])] = (r['details'] or {}).get('slice_columns')
for n in (256, 2048):
    keys = [k for k in t if k[1] == n and all(l in t[k] for l in ('auto', 'w64', 'cublas_dense', 'cusparse'))]
    x = [t[k] for k in keys]
    print('n=%d (%d): auto over w64 %.3f (min %.3f); over dense auto %.3f (min %.3f) w64 %.3f; over cuSPARSE auto %.3f (min %.3f) w64 %.3f; widths %s' % (
        n, len(keys), gm([v['w64'] / v['auto'] for v in x]), min(v['w64'] / v['auto'] for v in x),
        gm([v['cublas_dense'] / v['auto'] for v in x]), min(v['cublas_dense'] / v['auto'] for v in x),
        gm([v['cublas_dense'] / v['w64'] for v in x]), gm([v['cusparse'] / v['auto'] for v in x]),
        min(v['cusparse'] / v['auto'] for v in x), gm([v['cusparse'] / v['w64'] for v in x]),
        dict(collections.Counter(width[k] for k in keys))))
PY
cd $R && tar czf $OUT/run228-results.tgz . && cd - > /dev/null && rm -rf $R

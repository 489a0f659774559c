#!/usr/bin/env bash
# Run 211: the final code (DASP's arrays from the pool beside the upload, the uploaded CSR in one
# allocation, the staging team as before: all threads but one) against run 209's binary
# (tcsparse_old, commit 8acd5e3), alternating, three rounds: the default suite and cage11 x 35,
# dasp fp64 / fp16 / bf16, 5 plan builds a case. Then the GPU tests of DASP, the plan's pool and
# the upload path on the final binary (run 210 ran the wider set on the code before the staging
# team's revert), and memcheck of the build beside the upload.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run211.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
CAGE=gen:replicate:file=.mx/cage11dir/cage11.mtx.gz,copies=35,seed=10
for round in 1 2 3; do
  for v in old new; do
    bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
    timeout 100 $bin bench --suite default --matrix-dir .mx/cage11dir --methods dasp \
      --precisions fp64,fp16,bf16 --plan-builds 5 --runs 20 --output $R/default-$v-$round.jsonl > /dev/null 2>&1
    echo "default $v round $round rc $? [$SECONDS s]"
    timeout 60 $bin bench $CAGE --methods dasp --precisions fp64,fp16,bf16 --plan-builds 5 --runs 20 \
      --output $R/cagex35-$v-$round.jsonl > /dev/null 2>&1
    echo "cage x35 $v round $round rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json,sys,glob,collections,statistics
R=sys.argv[1]
rows=collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(R+'/*-*-*.jsonl')):
    v=f.split('-')[-2]
    for line in open(f):
        r=json.loads(line)
        if r.get('nnz',0)<1e6: continue
        b=r['details'].get('plan_builds_ms') or [r['plan_build_ms']]
        rows[(r['matrix'][:18],r['precision'])][v].append((statistics.median(b)/r['median_ms'], min(b)/r['median_ms']))
print('case: median of the builds in SpMV-times per round (min of the 5 builds)')
for k,vals in rows.items():
    print('%-18s %-5s' % k, '  '.join('%s %s' % (v, ' '.join('%4.0f(%3.0f)' % x for x in vals[v])) for v in ('old','new')))
PY
SECONDS=0
F='DaspGpu*:PlanBuild.*:HostUploadTest.*:*FromDeviceCsr*:Conformance*dasp*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]|Failure$|Expected|Which is|reserved" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 120 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DaspGpu.LayoutIsTheSameWhereverItIsBuiltUnderEveryUploadPolicy:DaspGpu.BuildThatRunsOutOfDeviceMemoryThrowsAndLeaksNothing:PlanBuild.*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
cd $R && tar czf $OUT/run211-results.tgz . && cd - > /dev/null && rm -rf $R

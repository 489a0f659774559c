#!/usr/bin/env bash
# Run 233: column indices staged in narrow form (HostUploader::copy_columns). 1. tcsparse_upload_probe
# on the plan-build goal's worst cases (stencil3d_100, cage11 x 35, banded_2m) and a random-column
# matrix: each matrix's column indices staged as they are and narrow. 2. DASP plan builds, the
# new binary against tcsparse_old (commit 2caf785), alternating, three rounds: the default suite
# (with .mx/cage11dir: replica_cage11) and cage11 x 35, fp64 / fp16 / bf16, 5 plan builds a
# case. 3. The GPU tests of the upload path and DASP's plan build, then memcheck of the column
# upload and DASP's build.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run233.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
SECONDS=0
TCSPARSE_PROBE_QUICK=1 timeout 200 $b/tcsparse_upload_probe 64 \
  stencil3d:nx=100,ny=100,nz=100,seed=2 \
  replicate:file=.mx/cage11dir/cage11.mtx.gz,copies=35,seed=10 \
  banded:n=2000000,bandwidth=5,seed=6 \
  random:rows=4000000,cols=4000000,min=4,max=12,seed=3 > $R/probe.jsonl
echo "probe rc $? [$SECONDS s]"
python3 - $R/probe.jsonl <<'PY'
import json,sys
for line in open(sys.argv[1]):
    r=json.loads(line)
    if r['what'] in ('upload_csr','columns_as_they_are','columns_narrow','staged_same_bytes'):
        print('%-22s %-60s %8.3f ms %6.1f GB/s %s' % (r['what'], r.get('matrix','')[:60], r['median_ms'], r['median_gbps'], r.get('exact','')))
PY
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
F='PlanBuild.*:HostUploadTest.*:DaspGpu.LayoutIsTheSameWhereverItIsBuilt*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]|Failure$|Expected|Which is" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='HostUploadTest.ColumnIndices*:DaspGpu.LayoutIsTheSameWhereverItIsBuiltUnderEveryUploadPolicy:PlanBuild.*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
cd $R && tar czf $OUT/run233-results.tgz . && cd - > /dev/null && rm -rf $R

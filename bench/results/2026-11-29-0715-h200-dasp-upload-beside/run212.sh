#!/usr/bin/env bash
# Run 212: tcsparse = this code (build scopes nest: the pool's unused memory is given back when
# the outermost closes, so a DASP plan no longer unmaps memory beside its upload);
# tcsparse_old = run 211's new binary (commit db6d68d). 1. the default suite and cage11 x 35, dasp
# fp64 / fp16 / bf16, 5 plan builds a case, old and new alternating, three rounds;
# 2. tcsparse_upload_probe (TCSPARSE_PROBE_BESIDE): upload_csr_beside by ring depth (4 / 8
# chunks), work beside it, and with the pool grown beforehand; 3. the GPU tests of run 210's set
# (16 shards); 4. memcheck of the pool and DASP's build beside the upload.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run212.log) 2>&1
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
        rows[(r['matrix'][:18],r['precision'])][v].append((statistics.median(b)/r['median_ms'], min(b)/r['median_ms'], r['details'].get('csr_upload_ms',0)))
print('case: median of the builds in SpMV-times per round (min of the 5 builds; upload ms of the last)')
for k,vals in rows.items():
    print('%-18s %-5s' % k, '  '.join('%s %s' % (v, ' '.join('%4.0f(%3.0f,%.2f)' % x for x in vals[v])) for v in ('old','new')))
PY
SECONDS=0
TCSPARSE_PROBE_QUICK=1 TCSPARSE_PROBE_BESIDE=1 timeout 150 $b/tcsparse_upload_probe 64 \
  stencil3d:nx=100,ny=100,nz=100,seed=2 replicate:file=.mx/cage11dir/cage11.mtx.gz,copies=35,seed=10 > $R/probe-beside.jsonl
echo "probe rc $? [$SECONDS s]"
python3 - $R/probe-beside.jsonl <<'PY'
import json,sys
for line in open(sys.argv[1]):
    r=json.loads(line)
    if r['what'] in ('beside','dasp_plan'):
        print(r['matrix'][:12], r['what'], r.get('work','')[:40], 'chunks', r.get('chunks',''), 'pregrown', r.get('pool_pregrown',''), 'GB/s %.1f med %.3f ms' % (r['median_gbps'], r['median_ms']),
              'build %.2f' % r['median_build_ms'] if 'median_build_ms' in r else '')
PY
SECONDS=0
F='DaspGpu*:PlanBuild.*:HostUploadTest.*:*Conformance*:*ApplyPromises*:*FromDeviceCsr*:CsrOverlapGpu*:CsrFullOverlapTest.*:SpmmLayouts.Tca*:DeviceCsrViewValidation.*:DeviceTest.*:HbpGpu*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 230 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -E "^\[  FAILED  \]|Failure$|Expected|Which is|reserved|given back" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 120 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DaspGpu.LayoutIsTheSameWhereverItIsBuiltUnderEveryUploadPolicy:DaspGpu.BuildThatRunsOutOfDeviceMemoryThrowsAndLeaksNothing:PlanBuild.*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
cd $R && tar czf $OUT/run212-results.tgz . && cd - > /dev/null && rm -rf $R

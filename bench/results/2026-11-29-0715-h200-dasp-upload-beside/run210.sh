#!/usr/bin/env bash
# Run 210: DASP's device build beside the upload without cudaMalloc / cudaFree (its arrays from
# the pool, allocated on the build's stream), the staging team at half the threads, the uploaded
# CSR in one allocation (tcsparse; tcsparse_old: run 209's binary, commit 8acd5e3).
# 1. the default suite and cage11 x 35, dasp fp64 / fp16 / bf16, 5 plan builds a case, old and
#    new alternating, two rounds; 2. tcsparse_upload_probe (TCSPARSE_PROBE_BESIDE) again;
# 3. GPU tests of DASP, the upload path, the pool, plans from device CSR, csr_overlap and tca
#    (whose from_pool arrays now give their memory back when released), 16 shards;
# 4. memcheck of DASP's build beside the upload.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run210.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
CAGE=gen:replicate:file=.mx/cage11dir/cage11.mtx.gz,copies=35,seed=10
for round in 1 2; do
  for v in old new; do
    bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
    timeout 100 $bin bench --suite default --matrix-dir .mx/cage11dir --methods dasp \
      --precisions fp64,fp16,bf16 --plan-builds 5 --runs 20 --output $R/default-$v-$round.jsonl > /dev/null 2>&1
    echo "default $v round $round rc $? [$SECONDS s]"
    timeout 60 $bin bench $CAGE --methods dasp --precisions fp64,fp16,bf16 --plan-builds 5 --runs 20 \
      --output $R/cage-x35-$v-$round.jsonl > /dev/null 2>&1
    echo "cage x35 $v round $round rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json,sys,glob,collections
R=sys.argv[1]
rows=collections.defaultdict(dict)
for f in sorted(glob.glob(R+'/default-*.jsonl')+glob.glob(R+'/cage-x35-*.jsonl')):
    v=f.split('-')[-2]; rnd=f.split('-')[-1][0]
    for line in open(f):
        r=json.loads(line)
        if r.get('nnz',0)<1e6: continue
        d=r.get('details',{})
        key=(r['matrix'][:22],r['precision'])
        rows[key][v+rnd]=(r['plan_build_ms']/r['median_ms'], r['plan_build_ms'], d.get('csr_upload_ms',0))
for key,vals in rows.items():
    print('%-22s %-5s' % key, '  '.join('%s %5.0f (%.2f ms, upload %.2f)' % (k, *vals[k]) for k in sorted(vals)))
PY
SECONDS=0
TCSPARSE_PROBE_QUICK=1 TCSPARSE_PROBE_BESIDE=1 timeout 120 $b/tcsparse_upload_probe 64 \
  stencil3d:nx=100,ny=100,nz=100,seed=2 replicate:file=.mx/cage11dir/cage11.mtx.gz,copies=35,seed=10 \
  banded:n=2000000,bandwidth=5,seed=6 > $R/probe-beside.jsonl
echo "probe rc $? [$SECONDS s]"
python3 - $R/probe-beside.jsonl <<'PY'
import json,sys
for line in open(sys.argv[1]):
    r=json.loads(line)
    if r['what'] in ('beside','dasp_plan','allocate_three','allocate_one'):
        print(r['matrix'][:20], r['what'], r.get('work',''), r.get('copy_threads',''), 'GB/s %.1f med %.3f ms' % (r['median_gbps'], r['median_ms']),
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
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -E "^\[  FAILED  \]|Failure$|Expected|Which is|reserved" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
grep -E "^\[ RUN|^\[       OK" $R/gpu-tests.txt | awk '/RUN/{r=$NF} /OK/{ok[$4]=1} END{}' > /dev/null
python3 - $R/gpu-tests.txt <<'PY'
import sys
run=set(); ok=set()
for l in open(sys.argv[1]):
    if l.startswith('[ RUN'): run.add(l.split()[-1])
    if l.startswith('[       OK') or l.startswith('[  SKIPPED'): ok.add(l.split()[3] if l.startswith('[       OK') else l.split()[-1])
print('started, not finished:', sorted(run-ok)[:20])
PY
SECONDS=0
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DaspGpu.LayoutIsTheSameWhereverItIsBuiltUnderEveryUploadPolicy:PlanBuild.*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3

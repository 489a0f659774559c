#!/usr/bin/env bash
# Run 236: DASP's device fill of the medium rows reads each row in order (coalesced) instead of
# walking the row-block's storage positions. 1. GPU tests of DASP (the device fill bit for bit
# the host fill, device build = host build, every category), DASP's conformance and plans from
# device CSR, then memcheck of the fill. 2. DASP plan builds, the new binary against tcsparse_old
# (commit 2caf785), alternating, three rounds: the default suite (with .mx/cage11dir:
# replica_cage11) from host CSR and from device CSR (--from-device), and cage11 x 35, fp64 /
# fp16 / bf16, 5 plan builds a case.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run236.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='DaspGpu*:*Conformance*dasp*:*ApplyPromises*dasp*:*FromDeviceCsr*dasp*:PlanBuild.*'
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
  --gtest_filter='DaspGpu.DeviceFillEqualsHostFillOnLargeMatrices:DaspGpuOnCatalogue.DeviceFillEqualsHostFill/1*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
SECONDS=0
CAGE=gen:replicate:file=.mx/cage11dir/cage11.mtx.gz,copies=35,seed=10
for round in 1 2 3; do
  for v in old new; do
    bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
    timeout 100 $bin bench --suite default --matrix-dir .mx/cage11dir --methods dasp \
      --precisions fp64,fp16,bf16 --plan-builds 5 --runs 20 --output $R/default-$v-$round.jsonl > /dev/null 2>&1
    echo "default $v round $round rc $? [$SECONDS s]"
    timeout 100 $bin bench --suite default --matrix-dir .mx/cage11dir --methods dasp --from-device \
      --precisions fp64,fp16,bf16 --plan-builds 5 --runs 20 --output $R/fromdevice-$v-$round.jsonl > /dev/null 2>&1
    echo "from device $v round $round rc $? [$SECONDS s]"
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
    kind,v=f.split('/')[-1].split('-')[:2]
    for line in open(f):
        r=json.loads(line)
        if r.get('nnz',0)<1e6: continue
        b=r['details'].get('plan_builds_ms') or [r['plan_build_ms']]
        fill=r['details'].get('plan_phases_ms',{}).get('device_fill',0)
        rows[(kind,r['matrix'][:18],r['precision'])][v].append((statistics.median(b)/r['median_ms'], fill))
print('case: median of the builds in SpMV-times per round (the last build\'s device_fill ms)')
for k,vals in rows.items():
    print('%-10s %-18s %-5s' % k, '  '.join('%s %s' % (v, ' '.join('%4.0f(%4.3f)' % x for x in vals[v])) for v in ('old','new')))
PY
cd $R && tar czf $OUT/run236-results.tgz . && cd - > /dev/null && rm -rf $R

#!/usr/bin/env bash
# Run 239: the medium fill's irregular part with 32 / R lanes a row, all R rows at once (instead
# of one row after another, 32 lanes each). GPU tests of DASP and memcheck of the fill, then one
# round of fp16 and fp64 plans from device CSR: tcsparse_old (2caf785), tcsparse_kept (run 238's
# code) and this code.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run239.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='DaspGpu*:*Conformance*dasp*:*ApplyPromises*dasp*:*FromDeviceCsr*dasp*:PlanBuild.*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]|Failure$|Expected|Which is" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 60 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DaspGpu.DeviceFillEqualsHostFillOnLargeMatrices:*DaspGpuOnCatalogue.DeviceFillEqualsHostFill/*' > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
SECONDS=0
for v in old kept new; do
  bin=$b/tcsparse_$v; [ $v = new ] && bin=$b/tcsparse
  timeout 60 $bin bench --suite default --matrix-dir .mx/cage11dir --methods dasp --from-device \
    --precisions fp16,fp64 --plan-builds 5 --runs 10 --output $R/fromdevice-$v.jsonl > /dev/null 2>&1
  echo "from device $v rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json,sys
R=sys.argv[1]
fill={}
for v in ('old','kept','new'):
    for line in open(f'{R}/fromdevice-{v}.jsonl'):
        r=json.loads(line)
        if r.get('nnz',0)<1e6: continue
        fill.setdefault((r['matrix'][:18],r['precision']),{})[v]=r['details'].get('plan_phases_ms',{}).get('device_fill',0)
for k,d in sorted(fill.items()): print('%-18s %-5s fill old %.3f kept %.3f new %.3f' % (k[0],k[1], d.get('old',0), d.get('kept',0), d.get('new',0)))
PY
cd $R && tar czf $OUT/run239-results.tgz . && cd - > /dev/null && rm -rf $R

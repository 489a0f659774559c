#!/usr/bin/env bash
# Run 238: run 237's fill with the padding rule shared with the other fill kernels
# (put_row_value): the same GPU tests, memcheck of the fill on large matrices and on the
# catalogue, and one round of DASP plan builds against tcsparse_old (commit 2caf785).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run238.log) 2>&1
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
timeout 90 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DaspGpu.DeviceFillEqualsHostFillOnLargeMatrices:*DaspGpuOnCatalogue.DeviceFillEqualsHostFill/*' > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
SECONDS=0
CAGE=gen:replicate:file=.mx/cage11dir/cage11.mtx.gz,copies=35,seed=10
for v in old new; do
  bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
  timeout 100 $bin bench --suite default --matrix-dir .mx/cage11dir --methods dasp --from-device \
    --precisions fp16 --plan-builds 5 --runs 20 --output $R/fromdevice-$v.jsonl > /dev/null 2>&1
  echo "from device $v rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json,sys,glob,statistics
R=sys.argv[1]
fill={}
for v in ('old','new'):
    for line in open(f'{R}/fromdevice-{v}.jsonl'):
        r=json.loads(line)
        if r.get('nnz',0)<1e6: continue
        fill.setdefault(r['matrix'][:18],{})[v]=r['details'].get('plan_phases_ms',{}).get('device_fill',0)
for k,d in fill.items(): print('%-18s fill old %.3f new %.3f' % (k, d.get('old',0), d.get('new',0)))
PY
cd $R && tar czf $OUT/run238-results.tgz . && cd - > /dev/null && rm -rf $R

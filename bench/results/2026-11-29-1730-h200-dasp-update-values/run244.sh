#!/usr/bin/env bash
# Run 244: the row offsets from the build's pool in an allocation of their own (run 243's
# cudaMalloc cost 0.1-0.15 ms of every plan build). PlanBuild.* and the update tests, then the
# plan builds as in run 243:
# 2. tcsparse bench, the new binary and tcsparse_old (commit 1dffdbb: the same DASP, without
# update_values), alternating, two rounds: the default suite (with cage11) and cage11 x 35, dasp
# and cusparse, fp64 / fp16 / bf16, 3 plan builds a case: plan builds, the fill phase
# (details.plan_phases_ms.device_fill) and details.update_values_ms.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run244.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='PlanBuild.*:DaspGpu.UpdateValues*:AllSynthetic/DaspGpuOnCatalogue.UpdateValues*:*ApplyPromises*dasp*:DaspGpu.LayoutIsTheSame*:*FromDeviceCsr*dasp*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 280 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]" | sort | uniq -c | head -20
echo "update tests run: $(cat $R/tests-*.txt | grep -c 'OK \].*UpdateValues')"
echo "gpu tests [$SECONDS s]"
SECONDS=0
CAGE=gen:replicate:file=.mx/cage11dir/cage11.mtx.gz,copies=35,seed=10
for round in 1 2; do
  for v in old new; do
    bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
    timeout 150 $bin bench --suite default --matrix-dir .mx/cage11dir --methods dasp,cusparse \
      --precisions fp64,fp16,bf16 --plan-builds 3 --runs 20 --output $R/default-$v-$round.jsonl > /dev/null 2>&1
    echo "default $v round $round rc $? [$SECONDS s]"
    timeout 60 $bin bench $CAGE --methods dasp --precisions fp64,fp16,bf16 --plan-builds 3 --runs 20 \
      --output $R/cagex35-$v-$round.jsonl > /dev/null 2>&1
    echo "cage x35 $v round $round rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json,sys,glob,collections,statistics
R=sys.argv[1]
rows=collections.defaultdict(lambda: collections.defaultdict(list))
upd=collections.defaultdict(list)
fills=collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(R+'/default-*-*.jsonl'))+sorted(glob.glob(R+'/cagex35-*-*.jsonl')):
    v=f.split('-')[-2]
    for line in open(f):
        r=json.loads(line)
        if 'median_ms' not in r: continue
        key=(r['matrix'][:18],r['method'],r['precision'])
        if r.get('nnz',0)>=1e6: rows[key][v].append(r['plan_build_ms']/r['median_ms'])
        fill=r.get('details',{}).get('plan_phases_ms',{}).get('device_fill')
        if fill is not None: fills[key][v].append(fill)
        if v=='new' and 'update_values_ms' in r.get('details',{}):
            upd[key].append((r['details']['update_values_ms'], r['median_ms'], r['plan_build_ms'], r['nnz']))
print('plan build in SpMV-times (median of 3 builds), per round, >= 1 M nonzeros')
for k,vals in rows.items():
    print('%-18s %-11s %-5s' % k, '  '.join('%s %s' % (v, ' '.join('%4.0f' % x for x in vals[v])) for v in ('old','new')))
print('device_fill phase ms per round')
for k,vals in fills.items():
    print('%-18s %-11s %-5s' % k, '  '.join('%s %s' % (v, ' '.join('%6.3f' % x for x in vals[v])) for v in ('old','new')))
print('update_values (new binary): ms, in SpMV-times, plan build / update, GB/s of values')
for k,vals in upd.items():
    vsize={'fp64':8,'fp16':2,'bf16':2}.get(k[2],8)
    print('%-18s %-11s %-5s' % k, '  '.join('%.4f ms %5.1fx %6.0fx %6.0f' % (u, u/m, p/u, n*vsize/u/1e6) for u,m,p,n in vals))
PY
cd $R && gzip tests-*.txt *.jsonl && tar czf $OUT/run244.tgz . && cp run244.log $OUT/

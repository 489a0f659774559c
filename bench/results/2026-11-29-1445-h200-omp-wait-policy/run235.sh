#!/usr/bin/env bash
# Run 235: does the staging team's OpenMP wait policy limit the staged upload? The same binaries
# under OMP_WAIT_POLICY unset (libgomp's default), ACTIVE and PASSIVE. 1. tcsparse_upload_probe
# (run 234's binary: its upload_csr records "ramps": false are 2caf785's upload) on cage11 x 35
# and banded_2m, each policy twice, alternating. 2. DASP plan builds of the default suite and
# cage11 x 35 with tcsparse_old (commit 2caf785), fp64 / fp16 / bf16, 5 builds a case, unset and
# ACTIVE alternating, two rounds.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run235.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for round in 1 2; do
  for policy in unset ACTIVE PASSIVE; do
    env_args=(); [ $policy != unset ] && env_args=(OMP_WAIT_POLICY=$policy)
    env "${env_args[@]}" TCSPARSE_PROBE_QUICK=1 timeout 100 $b/tcsparse_upload_probe 64 \
      replicate:file=.mx/cage11dir/cage11.mtx.gz,copies=35,seed=10 \
      banded:n=2000000,bandwidth=5,seed=6 > $R/probe-$policy-$round.jsonl
    echo "probe $policy round $round rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json,sys,glob,collections
R=sys.argv[1]
rows=collections.defaultdict(list)
for f in sorted(glob.glob(R+'/probe-*.jsonl')):
    policy=f.split('-')[-2]
    for line in open(f):
        r=json.loads(line)
        if r['what'] in ('staged','host_copy') or (r['what']=='upload_csr' and not r.get('ramps')):
            key=(r['what'], r.get('matrix','')[:20], r.get('values',''), str(r.get('copy_threads', r.get('threads',''))))
            rows[key].append('%s %.1f' % (policy, r['median_gbps']))
for k,v in rows.items(): print('%-10s %-20s %-5s %-3s' % k, ' | '.join(v))
PY
SECONDS=0
CAGE=gen:replicate:file=.mx/cage11dir/cage11.mtx.gz,copies=35,seed=10
for round in 1 2; do
  for policy in unset ACTIVE; do
    env_args=(); [ $policy != unset ] && env_args=(OMP_WAIT_POLICY=$policy)
    env "${env_args[@]}" timeout 100 $b/tcsparse_old bench --suite default --matrix-dir .mx/cage11dir --methods dasp \
      --precisions fp64,fp16,bf16 --plan-builds 5 --runs 20 --output $R/default-$policy-$round.jsonl > /dev/null 2>&1
    echo "default $policy round $round rc $? [$SECONDS s]"
    env "${env_args[@]}" timeout 60 $b/tcsparse_old bench $CAGE --methods dasp,cusparse --precisions fp64,fp16,bf16 --plan-builds 5 --runs 20 \
      --output $R/cagex35-$policy-$round.jsonl > /dev/null 2>&1
    echo "cage x35 $policy round $round rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json,sys,glob,collections,statistics
R=sys.argv[1]
rows=collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(R+'/*x35-*-*.jsonl'))+sorted(glob.glob(R+'/default-*-*.jsonl')):
    v=f.split('-')[-2]
    for line in open(f):
        r=json.loads(line)
        if r.get('nnz',0)<1e6: continue
        b=r['details'].get('plan_builds_ms') or [r['plan_build_ms']]
        rows[(r['matrix'][:18],r['method'],r['precision'])][v].append((statistics.median(b)/r['median_ms'], r['details'].get('csr_upload_ms', 0)))
print('case: median of the builds in SpMV-times per round (the last build\'s csr_upload_ms)')
for k,vals in rows.items():
    print('%-18s %-8s %-5s' % k, '  '.join('%s %s' % (v, ' '.join('%4.0f(%4.2f)' % x for x in vals[v])) for v in ('unset','ACTIVE')))
PY
cd $R && tar czf $OUT/run235-results.tgz . && cd - > /dev/null && rm -rf $R

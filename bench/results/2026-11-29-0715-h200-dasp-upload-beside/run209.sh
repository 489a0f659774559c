#!/usr/bin/env bash
# Run 209: where a DASP plan's upload from pageable memory loses to the staging ring (issue 8's
# plan-build goal). 1. tcsparse_upload_probe with TCSPARSE_PROBE_BESIDE on the three fp16 / bf16
# cases above 100 SpMV-times (stencil3d_100, cage11 x 35, banded_2m): upload_csr alone, then
# upload_csr_beside by staging threads and by what runs beside it, then whole DASP plans;
# 2. the default suite, dasp in fp16 / bf16, 5 plan builds a case, two rounds (this code).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run209.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
SECONDS=0
TCSPARSE_PROBE_QUICK=1 TCSPARSE_PROBE_BESIDE=1 timeout 240 $b/tcsparse_upload_probe 64 \
  stencil3d:nx=100,ny=100,nz=100,seed=2 \
  replicate:file=.mx/cage11dir/cage11.mtx.gz,copies=35,seed=10 \
  banded:n=2000000,bandwidth=5,seed=6 > $R/probe-beside.jsonl
echo "probe rc $? [$SECONDS s]"
python3 - $R/probe-beside.jsonl <<'PY'
import json,sys
for line in open(sys.argv[1]):
    r=json.loads(line)
    if r['what'] in ('beside','dasp_plan'):
        print(r['matrix'][:24], r['what'], r.get('work'), r.get('copy_threads',''), 'GB/s %.1f med %.3f ms' % (r['median_gbps'], r['median_ms']),
              'work %.2f alloc %.2f' % (r.get('median_work_ms',0), r.get('median_allocate_ms',0)) if 'median_work_ms' in r else '',
              'build %.2f' % r['median_build_ms'] if 'median_build_ms' in r else '')
PY
SECONDS=0
for round in 1 2; do
  timeout 150 $b/tcsparse bench --suite default --matrix-dir .mx/cage11dir --methods dasp \
    --precisions fp16,bf16 --plan-builds 5 --runs 20 --output $R/default-dasp-$round.jsonl > /dev/null 2>&1
  echo "default round $round rc $? [$SECONDS s]"
done
python3 - $R/default-dasp-*.jsonl <<'PY'
import json,sys
for f in sys.argv[1:]:
    for line in open(f):
        r=json.loads(line)
        if r.get('nnz',0)<1e6: continue
        d=r.get('details',{})
        print(f[-8:-6], r['matrix'][:20], r['precision'], 'us %.1f build %.2f = %.0f' % (r['median_ms']*1e3, r['plan_build_ms'], r['plan_build_ms']/r['median_ms']),
              'upload %.2f alloc %.2f' % (d.get('csr_upload_ms',0), d.get('csr_allocate_ms',0)))
PY

#!/usr/bin/env bash
# Run 91: a matrix's own upload (upload_csr, as a plan makes it) against one staged copy of as
# many bytes, in the probe (no plan around it).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee -a $OUT/run91.log) 2>&1
b=/tmp/bin; mkdir -p $b; xz -dc .device-bin/tcsparse_upload_probe.xz > $b/probe; chmod +x $b/probe
TCSPARSE_PROBE_QUICK=1 timeout 200 $b/probe 512 stencil3d:nx=100,ny=100,nz=100,seed=1 \
  stencil2d:nx=2000,ny=2000,seed=1 random:rows=1000000,cols=1000000,dist=uniform,min=10,max=30,seed=3 > $OUT/probe.jsonl 2>&1
python3 -c "
import json
for l in open('$OUT/probe.jsonl'):
    try: r=json.loads(l)
    except Exception: print(l.strip()); continue
    if r['what'] in ('staged','upload_csr','staged_same_bytes','pinned_copy'): print(r['what'], r.get('matrix',''), r.get('copy_threads',''), '%.1f MB' % (r['bytes']/1e6), 'best %.1f median %.1f GB/s' % (r['best_gbps'], r['median_gbps']))
"

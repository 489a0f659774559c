#!/usr/bin/env bash
# Run 299: which part of DASP's device build slows the upload beside it. tcsparse_upload_probe
# with TCSPARSE_PROBE_BISECT: upload_csr_beside (fp16) with nothing on the worker, then the row
# offsets' check, + the index build, + the columns' check, + the values' storage from the pool
# (as the plan runs them), 5 rounds alternating, and the DASP plan itself; twice.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee -a $OUT/run299.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse_upload_probe.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
for pass in 1 2; do
  TCSPARSE_PROBE_QUICK=1 TCSPARSE_PROBE_BISECT=1 timeout 200 $b/tcsparse_upload_probe 64 \
    gen:stencil3d:nx=100,ny=100,nz=100,seed=2 gen:banded:n=2000000,bandwidth=5,seed=6 \
    > $OUT/run299-bisect-$pass.jsonl 2>&1
  echo "pass $pass rc $?"
  grep '"what":"bisect"' $OUT/run299-bisect-$pass.jsonl | python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); print(f\"  {r['matrix'][4:22]:18s} {r['work']:34s} best {r['best_gbps']:5.1f} median {r['median_gbps']:5.1f} GB/s  work {r.get('median_work_ms', 0):5.2f} ms build {r.get('median_build_ms', 0):5.2f} ms\")"
done
gzip $OUT/*.jsonl

#!/usr/bin/env bash
# Run 90: why plan uploads stage at 35-40 GB/s when the probe stages at 52: the host's NUMA
# layout and page sizes, and the probe with its source written by one thread against all.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee -a $OUT/run90.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -i -E "model name|numa|socket|core|thread|L2|L3"
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag
nvidia-smi topo -m 2>/dev/null | head -5
b=/tmp/bin; mkdir -p $b; xz -dc .device-bin/tcsparse_upload_probe.xz > $b/probe; chmod +x $b/probe
for fill in parallel serial parallel serial; do
  if [ $fill = serial ]; then export TCSPARSE_PROBE_SERIAL_FILL=1; else unset TCSPARSE_PROBE_SERIAL_FILL; fi
  TCSPARSE_PROBE_QUICK=1 timeout 100 $b/probe 512 > $OUT/probe-$fill.jsonl 2>&1
  python3 -c "
import json
for l in open('$OUT/probe-$fill.jsonl'):
    r=json.loads(l)
    if r['what'] in ('staged','host_copy','pinned_copy','pageable_direct'): print('$fill', r['what'], r.get('copy_threads', r.get('threads','')), 'median %.1f GB/s' % r['median_gbps'])
"
done

#!/usr/bin/env bash
# Run 298: what bounds the staging of a caller's pageable arrays on this host: the CPU and memory
# topology, the GPU's link and addressing mode, and the upload probe with its source written by
# all threads (default) and by one thread (TCSPARSE_PROBE_SERIAL_FILL, as a reader or generator
# writes a matrix).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee -a $OUT/run298.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse_upload_probe.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
lscpu | grep -E "Model name|Socket|NUMA|Core|Thread|MHz|L3"
(numactl -H 2>/dev/null || ls /sys/devices/system/node/ 2>/dev/null) | head -20
nvidia-smi topo -m 2>/dev/null | head -8
nvidia-smi -q | grep -iE "addressing|link width|link gen|max link|current link" | head -12
for fill in parallel serial; do
  if [ $fill = serial ]; then export TCSPARSE_PROBE_SERIAL_FILL=1; fi
  for pass in 1 2; do
    TCSPARSE_PROBE_QUICK=1 timeout 100 $b/tcsparse_upload_probe 512 > $OUT/run298-probe-$fill-$pass.jsonl 2>&1
    echo "$fill fill pass $pass rc $?"
    grep -E '"what":"(pinned_copy|staged|host_copy|pageable_direct)"' $OUT/run298-probe-$fill-$pass.jsonl | \
      python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); print(f\"  {r['what']:16s} threads {r.get('threads', r.get('copy_threads','-'))!s:3s} best {r['best_gbps']:5.1f} GB/s median {r['median_gbps']:5.1f}\")"
  done
done
gzip $OUT/*.jsonl

#!/usr/bin/env bash
# Run 258: tcsparse_shared_x_probe (bench/shared_x_probe.cu) on the hbp suite's matrices whose x
# fits the L2, second version: each stripe's entries prefetched into the L2 (one bulk prefetch)
# while the stripe before runs, and 1, 2 or 4 blocks an SM; clusters of 2 with the prefetch.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run258.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
echo "[$SECONDS s] memcheck on a small R-MAT"
timeout 120 compute-sanitizer --tool memcheck $b/tcsparse_shared_x_probe rmat:scale=12,edge_factor=16,seed=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|difference" $R/memcheck.txt | head -12
(command -v cuobjdump && cuobjdump -sass $b/tcsparse_shared_x_probe | grep -o "ATOMS[.A-Z0-9]*\|UBLKPF[.A-Z0-9]*\|UBLKCP[.A-Z0-9]*\|ATOM[.A-Z0-9]*" | sort | uniq -c) 2>&1 | head
for spec in \
  "rmat:scale=18,edge_factor=48,seed=63" \
  "random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67" \
  "rmat:scale=19,edge_factor=48,seed=64" \
  "rmat:scale=20,edge_factor=48,seed=65" \
  "rmat:scale=21,edge_factor=48,seed=66" \
  ; do
  echo "[$SECONDS s] $spec"
  timeout 200 $b/tcsparse_shared_x_probe "$spec"; echo "rc $?"
done
cd $R && tar czf $OUT/run258.tgz . && cp run258.log $OUT/
echo "[$SECONDS s]"

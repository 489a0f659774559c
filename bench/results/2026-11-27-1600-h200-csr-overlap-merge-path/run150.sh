#!/usr/bin/env bash
# Run 150: where a plan from device CSR spends its time (8d6ea71): Nsight Compute of every kernel
# of one from-device build and apply of stencil2d_2000 and banded_2m in fp16 (durations), beside
# the bench's plan_build_ms for the same cases.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run150.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for g in "gen:stencil2d:nx=2000,ny=2000,seed=1" "gen:banded:n=2000000,bandwidth=5,seed=6"; do
  n=$(echo $g | cut -d: -f2)
  timeout 100 $b/tcsparse bench --methods csr_overlap --precisions fp16 --from-device --plan-builds 5 --runs 10 --output $R/bench-$n.jsonl "$g" > /dev/null 2>&1
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum -c 30 \
    $b/tcsparse bench --methods csr_overlap --precisions fp16 --from-device --plan-builds 1 --runs 1 --warmup-ms 0 --output /tmp/n.jsonl "$g" > $R/ncu-build-$n.txt 2>&1
  echo "$n rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, os, glob
for f in sorted(glob.glob(os.path.join(sys.argv[1], "bench-*.jsonl"))):
    for line in open(f):
        r = json.loads(line)
        print(r["matrix"], r["precision"], "build %.3f ms, SpMV %.4f ms, device_preprocess %.3f ms, SpMV-times %.2f" % (r["plan_build_ms"], r["median_ms"], r["device_preprocess_ms"], r["plan_build_ms"] / r["median_ms"]))
PY
for f in $R/ncu-build-*.txt; do echo "== $f"; grep -E "Context 1|duration" $f | sed -E 's/ +/ /g; s/\(const.*\) \(/ (/; s/<cub::policy.*//; s/, Context.*//; s/\(T1.*//' | paste - - | cut -c1-140 | head -30; done
gzip -f $R/*
cd $OUT && tar czf r.tgz r && rm -rf r

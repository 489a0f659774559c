#!/usr/bin/env bash
# Run 152: the host's part of a from-device build (trace stamps of an instrumented c3b06de build)
# and Nsight Compute sections of the batch table's scan and the CSR check kernels, stencil2d_2000
# and banded_2m fp16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run152.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse-trace.xz > $b/tcsparse; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for g in "gen:stencil2d:nx=2000,ny=2000,seed=1" "gen:banded:n=2000000,bandwidth=5,seed=6"; do
  n=$(echo $g | cut -d: -f2)
  TCSPARSE_BUILD_TRACE=1 timeout 100 $b/tcsparse bench --methods csr_overlap --precisions fp16 --from-device --plan-builds 5 --runs 10 --output $R/bench-$n.jsonl "$g" > /dev/null 2> $R/trace-$n.txt
  echo "$n trace rc $? [$SECONDS s]"
  timeout 150 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy -k 'regex:DeviceScanKernel|check_|count_row' -c 8 \
    $b/tcsparse bench --methods csr_overlap --precisions fp16 --from-device --plan-builds 1 --runs 1 --warmup-ms 0 --output /tmp/n.jsonl "$g" > $R/ncu-$n.txt 2>&1
  echo "$n ncu rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, os, glob
for f in sorted(glob.glob(os.path.join(sys.argv[1], "bench-*.jsonl"))):
    for line in open(f):
        r = json.loads(line)
        print(r["matrix"], r["precision"], "build %.3f ms, SpMV %.4f ms, device_preprocess %.3f ms, SpMV-times %.2f" % (r["plan_build_ms"], r["median_ms"], r["device_preprocess_ms"], r["plan_build_ms"] / r["median_ms"]))
PY
for f in $R/trace-*.txt; do echo "== $f"; tail -40 $f; done
for f in $R/ncu-*.txt; do echo "== $f"; grep -E "^  [a-z].*Context|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|Executed Ipc A|Registers Per|Achieved Occ|L1/TEX Hit|L2 Hit|Warp Cycles Per Issued|Stall" $f | cut -c1-150 | head -80; done
gzip -f $R/*
cd $OUT && tar czf r.tgz r && rm -rf r

#!/usr/bin/env bash
# Run 408: hbp's combine of few rows (combine_by_warps_kernel) loading before its wait for the
# SpMV kernel what that kernel does not write (the row's bounds and number, the lanes' first
# partial sums' numbers, y), so that after the wait only the partial sums are read. The HBP GPU
# tests and memcheck of the combine's; then the matrices that take it (one column block), the
# previous binary (tcsparse_old: 4c4dca8) and the new one alternating, fp64 and fp16, three passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run408.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
timeout 200 $b/tcsparse_gpu_tests --gtest_brief=1 --gtest_filter='HbpGpu.*:*Hbp*Conformance*:*Conformance*hbp*' > $R/run408-gpu-tests.txt 2>&1
echo "tests rc $? [$SECONDS s]"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" $R/run408-gpu-tests.txt | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/run408-gpu-tests.txt | head -40
timeout 100 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_brief=1 \
  --gtest_filter='HbpGpu.CombineLists*:HbpGpu.SpmvAndCombineCapture*:HbpGpu.EmptyShapes*' > $R/run408-memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/run408-memcheck.txt | tail -3
M="gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61
gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=1000000,exponent=2.3,seed=62
gen:rmat:scale=18,edge_factor=48,seed=63 gen:rmat:scale=19,edge_factor=48,seed=64
gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67
.mx/suitesparse/rajat01.mtx.gz gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=10"
for pass in 1 2 3; do
  for bin in tcsparse_old tcsparse; do
    timeout 60 $b/$bin bench $M --methods hbp,cusparse --precisions fp64,fp16 --runs 50 --plan-builds 1 \
      --output $R/run408-$bin-$pass.jsonl > /dev/null 2>&1
    echo "$bin pass $pass rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, statistics, collections, math
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/run408-tcsparse*.jsonl")):
    b = "old" if "tcsparse_old" in f else "new"
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        lab = b if r["method"] == "hbp" else r["method"]
        t[(r["matrix"][:34], r["precision"])][lab].append(r["median_ms"] * 1e3)
geo = collections.defaultdict(list)
for k, by in sorted(t.items()):
    med = {lab: statistics.median(v) for lab, v in by.items()}
    print(f"{k[0]:34s} {k[1]} cusparse {med['cusparse']:7.1f} old {med['old']:7.1f} new {med['new']:7.1f} new/old {med['old']/med['new']:.3f}")
    geo[k[1]].append(med["old"] / med["new"])
for p, v in sorted(geo.items()):
    print(p, "new over old geomean", round(math.exp(sum(map(math.log, v)) / len(v)), 3), "min", round(min(v), 3), "max", round(max(v), 3))
PY
cd $R && gzip *.jsonl run408-gpu-tests.txt && echo "[$SECONDS s]"

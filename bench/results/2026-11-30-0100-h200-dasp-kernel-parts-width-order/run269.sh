#!/usr/bin/env bash
# Run 269: the kernel instantiated for short rows only (kernel_parts=auto: no long or medium code,
# 31 registers fp64 / 26 fp16 against 40) and, as a second build, x gathered with an L2
# evict_last cache policy (TCSPARSE_DASP_X_L2_EVICT_LAST, tcsparse-xlast). GPU tests of DASP
# (8 shards), memcheck of the new case; the side-by-side matrices with kernel_parts=all and
# row_order=plan as variants and the x build beside, two passes; the default suite once with each
# build; the authors' code on short_4m and uniform_4_12_4m.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run269.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="*Dasp*:*dasp*:PlanBuild.*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
timeout 90 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DaspGpu.ALayoutOfShortRowsOnly*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
echo "[$SECONDS s] side"
M="gen:short:rows=4000000,cols=4000000,seed=7 gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=11 gen:replicate:file=.mx/suitesparse/cage11.mtx.gz,copies=35,seed=10 gen:stencil2d:nx=2000,ny=2000,seed=1 gen:rmat:scale=20,edge_factor=16,seed=3 gen:long:rows=20000,cols=1000000,length=1000,seed=8"
V="--variant all:kernel_parts=all --variant plan:row_order=plan"
for i in 1 2; do
  timeout 120 $b/tcsparse bench $M --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 1 --runs 50 $V \
    --output $R/side-new-$i.jsonl > /dev/null 2>&1; echo "side new $i rc $? [$SECONDS s]"
  timeout 100 $b/tcsparse-xlast bench $M --methods dasp --precisions fp64,fp16 --plan-builds 1 --runs 50 \
    --output $R/side-xlast-$i.jsonl > /dev/null 2>&1; echo "side xlast $i rc $? [$SECONDS s]"
done
timeout 150 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 1 --runs 30 \
  --variant all:kernel_parts=all --output $R/default-new.jsonl > /dev/null 2>&1; echo "default new rc $? [$SECONDS s]"
timeout 100 $b/tcsparse-xlast bench --suite default --matrix-dir .mx --methods dasp --precisions fp64,fp16 --plan-builds 1 --runs 30 \
  --output $R/default-xlast.jsonl > /dev/null 2>&1; echo "default xlast rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/side-*.jsonl") + glob.glob(f"{R}/default-*.jsonl")):
    build = "xlast" if "xlast" in f else "new"
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: print("error", r.get("matrix"), r.get("variant"), r.get("error")); continue
        d = r.get("details", {})
        v = r.get("variant") or "default"
        if build == "xlast": v = "xlast"
        t[(r["matrix"][:40], r["precision"], r["method"])][v].append((r["median_ms"], d.get("kernel_parts")))
for k, d in sorted(t.items()):
    if k[2] != "dasp": continue
    base = statistics.median(x[0] for x in d["default"])
    line = f"{k[0]:40s} {k[1]} default {base*1e3:7.1f} us parts {d['default'][0][1]}"
    cus = t.get((k[0], k[1], "cusparse"), {}).get("default")
    if cus: line += f" (over cusparse {statistics.median(x[0] for x in cus)/base:.3f}x)"
    print(line)
    for v, xs in sorted(d.items()):
        if v == "default": continue
        med = statistics.median(x[0] for x in xs)
        print(f"    {v:6s} {med*1e3:7.1f} us  default is {med/base:.3f}x as fast  parts {xs[0][1]}")
PY
echo "[$SECONDS s] external"
timeout 200 bash scripts/external-dasp.sh run --generate short_4m,uniform_4_12_4m --precisions fp64 --cli $b/tcsparse \
  --matrix-dir .external/matrices --out $R/external --budget-s 150 > $R/external-run.txt 2>&1
echo "external rc $? [$SECONDS s]"; tail -3 $R/external-run.txt
cat $R/external/comparison.md 2>/dev/null
cd $R && gzip *.jsonl && cat tests-*.txt | gzip > gpu-tests.txt.gz && rm tests-*.txt && tar czf $OUT/run269.tgz . && cp run269.log $OUT/
echo "[$SECONDS s]"

#!/usr/bin/env bash
# Run 272: windows of regular medium rows ordered by block width and caller row
# (medium_row_order=auto -> width) against the length order (variant len). GPU tests of DASP
# (8 shards) and memcheck of the new test; the side-by-side matrices (two passes) and the default
# suite with the variant; the authors' code on the side-by-side matrices in fp64.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run272.log) 2>&1
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
echo "[$SECONDS s] memcheck"
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DaspGpu.WindowsOfRegularMediumRowsOrderedByWidth*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
echo "[$SECONDS s] side"
M="gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=11 gen:replicate:file=.mx/suitesparse/cage11.mtx.gz,copies=35,seed=10 gen:stencil2d:nx=2000,ny=2000,seed=1 gen:rmat:scale=20,edge_factor=16,seed=3 gen:short:rows=4000000,cols=4000000,seed=7"
V="--variant len:medium_row_order=length"
for i in 1 2; do
  timeout 100 $b/tcsparse bench $M --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 1 --runs 50 $V \
    --output $R/run272-side-$i.jsonl > /dev/null 2>&1; echo "side $i rc $? [$SECONDS s]"
done
timeout 150 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16,bf16 --plan-builds 1 --runs 30 \
  $V --output $R/run272-default.jsonl > /dev/null 2>&1; echo "default rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: print("error", r.get("matrix"), r.get("variant"), r.get("error")); continue
        d = r.get("details", {})
        t[(r["matrix"][:40], r["precision"], r["method"])][r.get("variant") or "default"].append(
            (r["median_ms"], d.get("medium_row_order"), r.get("padding_ratio"), r.get("plan_build_ms") or r.get("build_ms")))
for k, d in sorted(t.items()):
    if k[2] != "dasp": continue
    base = statistics.median(x[0] for x in d["default"])
    line = f"{k[0]:40s} {k[1]} default {base*1e3:7.1f} us order {d['default'][0][1]} pad {d['default'][0][2]:.3f}"
    cus = t.get((k[0], k[1], "cusparse"), {}).get("default")
    if cus: line += f" (over cusparse {statistics.median(x[0] for x in cus)/base:.3f}x)"
    print(line)
    for v, xs in sorted(d.items()):
        if v == "default": continue
        med = statistics.median(x[0] for x in xs)
        print(f"    {v:6s} {med*1e3:7.1f} us  default is {med/base:.3f}x as fast  order {xs[0][1]} pad {xs[0][2]:.3f}")
PY
echo "[$SECONDS s] external"
timeout 240 bash scripts/external-dasp.sh run --generate default --precisions fp64 --cli $b/tcsparse \
  --matrix-dir .external/matrices --out $R/external --budget-s 180 > $R/external-run.txt 2>&1
echo "external rc $? [$SECONDS s]"; tail -3 $R/external-run.txt
cat $R/external/comparison.md 2>/dev/null
cd $R && gzip *.jsonl && cat tests-*.txt | gzip > run272-gpu-tests.txt.gz && rm tests-*.txt && mv memcheck.txt run272-memcheck.txt && tar czf $OUT/run272.tgz . && cp run272.log $OUT/
echo "[$SECONDS s]"

#!/usr/bin/env bash
# Run 265: DASP's kernel without an irregular part (the layout has none: regular_block_min_fill
# low enough, or no row-block tail below the fill). GPU tests of DASP (8 shards) and memcheck of
# the new cases; the side-by-side matrices in fp64 / fp16 with regular_block_min_fill 0 / 0.25 /
# 0.5 as variants, three passes; the default suite in fp64 / fp16 / bf16 with the 0 variant.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run265.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 280 $b/tcsparse_gpu_tests --gtest_filter="*Dasp*:*dasp*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
echo "[$SECONDS s] memcheck"
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DaspGpu.ALayoutWithoutIrregularValues*:AllSynthetic/DaspGpuOnCatalogue.EveryKernelShapeWithoutIrregularValues*/1:AllSynthetic/DaspGpuOnCatalogue.EveryKernelShapeWithoutIrregularValues*/5' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
M="gen:replicate:file=.mx/suitesparse/cage11.mtx.gz,copies=35,seed=10 gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=11 gen:stencil2d:nx=2000,ny=2000,seed=1 gen:short:rows=4000000,cols=4000000,seed=7"
V="--variant f0:regular_block_min_fill=0 --variant f25:regular_block_min_fill=0.25 --variant f50:regular_block_min_fill=0.5"
for i in 1 2 3; do
  timeout 120 $b/tcsparse bench $M --methods dasp --precisions fp64,fp16 --plan-builds 1 --runs 50 $V \
    --output $R/side-$i.jsonl > /dev/null 2>&1; echo "side pass $i rc $? [$SECONDS s]"
done
timeout 150 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16,bf16 --plan-builds 1 --runs 30 \
  --variant f0:regular_block_min_fill=0 --output $R/default-1.jsonl > /dev/null 2>&1; echo "default rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
R = sys.argv[1]
def load(pattern):
    t = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in sorted(glob.glob(f"{R}/{pattern}")):
        for l in open(f):
            r = json.loads(l)
            if "median_ms" not in r: print("error", r.get("matrix"), r.get("variant"), r.get("error")); continue
            d = r.get("details", {})
            t[(r["matrix"][:32], r["precision"], r["method"])][r.get("variant") or "default"].append(
                (r["median_ms"], r.get("padding_ratio"), d.get("irregular_kernel")))
    return t
for name, t in (("side", load("side-*.jsonl")), ("default", load("default-*.jsonl"))):
    print("==", name)
    for k, d in sorted(t.items()):
        if k[2] != "dasp": continue
        base = statistics.median(x[0] for x in d["default"])
        line = f"{k[0]:32s} {k[1]} default {base*1e3:7.1f} us pad {d['default'][0][1]:.3f} irr {d['default'][0][2]}"
        cus = t.get((k[0], k[1], "cusparse"), {}).get("default")
        if cus: line += f" (cusparse {statistics.median(x[0] for x in cus)/base:.2f}x)"
        print(line)
        for v, xs in sorted(d.items()):
            if v == "default": continue
            med = statistics.median(x[0] for x in xs)
            print(f"    {v:5s} {med*1e3:7.1f} us {base/med:.3f}x pad {xs[0][1]:.3f} irr {xs[0][2]}")
PY
cd $R && gzip *.jsonl && cat tests-*.txt | gzip > gpu-tests.txt.gz && rm tests-*.txt && tar czf $OUT/run265.tgz . && cp run265.log $OUT/
echo "[$SECONDS s]"

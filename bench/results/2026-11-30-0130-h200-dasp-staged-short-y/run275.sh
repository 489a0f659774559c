#!/usr/bin/env bash
# Run 275: the committed rule (short_y=auto: staged in fp64 layouts of short rows only, tiles by
# row, from 1 M rows). GPU tests of DASP (8 shards), memcheck and racecheck of the short-rows test;
# the short-row matrices with short_y=direct and short_y=staged as variants.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run275.log) 2>&1
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
echo "[$SECONDS s] sanitizers"
for tool in memcheck racecheck; do
  timeout 240 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests \
    --gtest_filter='DaspGpu.ALayoutOfShortRowsOnly*' --gtest_brief=1 > $R/run275-$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/run275-$tool.txt | tail -3
done
M="gen:short:rows=4000000,cols=4000000,seed=7 gen:random:rows=2000000,cols=2000000,dist=uniform,min=0,max=4,seed=5 gen:short:rows=5000000,cols=5000000,seed=2 gen:short:rows=200000,cols=200000,seed=2"
timeout 100 $b/tcsparse bench $M --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 1 --runs 50 \
  --variant direct:short_y=direct --variant staged:short_y=staged --output $R/run275-short.jsonl > /dev/null 2>&1
echo "short rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: print("error", r.get("matrix"), r.get("variant"), r.get("error")); continue
        t[(r["matrix"][:40], r["precision"], r["method"])][r.get("variant") or "default"].append((r["median_ms"], r.get("details", {}).get("short_y")))
for k, d in sorted(t.items()):
    if k[2] != "dasp": continue
    base = statistics.median(x[0] for x in d["default"])
    cus = statistics.median(x[0] for x in t[(k[0], k[1], "cusparse")]["default"])
    print(f"{k[0]:40s} {k[1]} default {base*1e3:7.1f} us short_y {d['default'][0][1]} (over cusparse {cus/base:.3f}x)")
    for v, xs in sorted(d.items()):
        if v != "default": print(f"    {v:6s} {statistics.median(x[0] for x in xs)*1e3:7.1f} us  short_y {xs[0][1]}")
PY
cd $R && gzip *.jsonl && cat tests-*.txt | gzip > run275-gpu-tests.txt.gz && rm tests-*.txt && tar czf $OUT/run275.tgz . && cp run275.log $OUT/
echo "[$SECONDS s]"

#!/usr/bin/env bash
# Run 279: 1+3 pairs within windows of caller rows (short_pair_window, auto = 4096 from 1 M rows)
# against the paper's pairing over the whole matrix (short_pair_window=off) and other windows.
# GPU tests of DASP (8 shards), memcheck of the new test; the short-row matrices (two passes),
# the default suite (fp64, fp16); ncu write operations on 4 M short rows; the authors' code on
# short_4m.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run279.log) 2>&1
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
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DaspGpu.OnesPaired*:AllSynthetic/DaspGpuOnCatalogue.DeviceBuildEqualsHostBuild/1*' --gtest_brief=1 > $R/run279-memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/run279-memcheck.txt | tail -3
echo "[$SECONDS s] bench"
M="gen:short:rows=4000000,cols=4000000,seed=7 gen:random:rows=2000000,cols=2000000,dist=uniform,min=0,max=4,seed=5 gen:random:rows=4000000,cols=4000000,dist=uniform,min=1,max=3,seed=6 gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=11"
V="--variant off:short_pair_window=off --variant w1024:short_pair_window=1024 --variant w16384:short_pair_window=16384 --variant w256:short_pair_window=256"
for i in 1 2; do
  timeout 120 $b/tcsparse bench $M --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 1 --runs 50 $V \
    --output $R/run279-short-$i.jsonl > /dev/null 2>&1; echo "short $i rc $? [$SECONDS s]"
done
timeout 150 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 3 --runs 30 \
  --variant off:short_pair_window=off --output $R/run279-default.jsonl > /dev/null 2>&1; echo "default rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: print("error", r.get("matrix"), r.get("variant"), r.get("error")); continue
        d = r.get("details", {})
        t[(r["matrix"][:40], r["precision"], r["method"])][r.get("variant") or "default"].append((r["median_ms"], d.get("short_pair_window"), (d.get("short_pieces") or {}).get("pairs_1_3"), d.get("short_y"), r.get("plan_build_ms")))
for k, d in sorted(t.items()):
    if k[2] != "dasp": continue
    base = statistics.median(x[0] for x in d["default"])
    x0 = d["default"][0]
    line = f"{k[0]:40s} {k[1]} default {base*1e3:7.1f} us window {x0[1]} pairs {x0[2]} y {x0[3]} build {statistics.median(x[4] for x in d['default']):.2f} ms"
    cus = t.get((k[0], k[1], "cusparse"), {}).get("default")
    if cus: line += f" (over cusparse {statistics.median(x[0] for x in cus)/base:.3f}x)"
    print(line)
    for v, xs in sorted(d.items()):
        if v == "default": continue
        med = statistics.median(x[0] for x in xs)
        print(f"    {v:7s} {med*1e3:7.1f} us  default is {med/base:.3f}x as fast  window {xs[0][1]} pairs {xs[0][2]} build {statistics.median(x[4] for x in xs):.2f} ms")
PY
MET=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum
for v in auto off; do
  timeout 60 ncu --metrics $MET --clock-control none -k regex:dasp_spmv --launch-skip 12 --launch-count 1 --csv \
    $b/tcsparse bench gen:short:rows=4000000,cols=4000000,seed=7 --methods dasp --precisions fp64 --plan-builds 1 --runs 3 --param short_pair_window=$v > $R/ncu-short-$v.csv 2>/dev/null
  echo "== ncu short_pair_window=$v rc $?"; grep -o '"[a-z_.]*sum[a-z_.]*","[a-z]*","[0-9,.]*"' $R/ncu-short-$v.csv
done
echo "[$SECONDS s] external"
timeout 150 bash scripts/external-dasp.sh run --generate short_4m --precisions fp64 --cli $b/tcsparse \
  --matrix-dir .external/matrices --out $R/external --budget-s 100 > $R/external-run.txt 2>&1
echo "external rc $? [$SECONDS s]"
cat $R/external/comparison.md 2>/dev/null | tail -5
cd $R && gzip *.jsonl && cat tests-*.txt | gzip > run279-gpu-tests.txt.gz && rm tests-*.txt && tar czf $OUT/run279.tgz . && cp run279.log $OUT/
echo "[$SECONDS s]"

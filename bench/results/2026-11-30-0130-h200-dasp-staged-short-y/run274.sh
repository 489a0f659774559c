#!/usr/bin/env bash
# Run 274 (after run 273: rows past the block's first row + 1024 stored directly, not the whole
# block; write_y rounds alpha * sum on its own): y of short tiles staged in shared memory a thread block at a time (short_y=auto in
# layouts of short rows only, tiles by row) against short_y=direct. GPU tests of DASP (8 shards),
# memcheck and racecheck of the short-rows test; the short-row matrices and the side-by-side ones
# (two passes), the default suite (fp64, fp16); the authors' code on short_4m.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run274.log) 2>&1
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
  timeout 120 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests \
    --gtest_filter='DaspGpu.ALayoutOfShortRowsOnly*' --gtest_brief=1 > $R/run274-$tool.txt 2>&1
  echo "$tool rc $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/run274-$tool.txt | tail -3
done
echo "[$SECONDS s] bench"
M="gen:short:rows=4000000,cols=4000000,seed=7 gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=11 gen:replicate:file=.mx/suitesparse/cage11.mtx.gz,copies=35,seed=10 gen:random:rows=2000000,cols=2000000,dist=uniform,min=0,max=4,seed=5"
V="--variant direct:short_y=direct"
for i in 1 2; do
  timeout 100 $b/tcsparse bench $M --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 1 --runs 50 $V \
    --output $R/run274-side-$i.jsonl > /dev/null 2>&1; echo "side $i rc $? [$SECONDS s]"
done
timeout 150 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 1 --runs 30 \
  $V --output $R/run274-default.jsonl > /dev/null 2>&1; echo "default rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: print("error", r.get("matrix"), r.get("variant"), r.get("error")); continue
        d = r.get("details", {})
        t[(r["matrix"][:40], r["precision"], r["method"])][r.get("variant") or "default"].append((r["median_ms"], d.get("short_y"), d.get("kernel_parts")))
for k, d in sorted(t.items()):
    if k[2] != "dasp": continue
    base = statistics.median(x[0] for x in d["default"])
    line = f"{k[0]:40s} {k[1]} default {base*1e3:7.1f} us short_y {d['default'][0][1]} parts {d['default'][0][2]}"
    cus = t.get((k[0], k[1], "cusparse"), {}).get("default")
    if cus: line += f" (over cusparse {statistics.median(x[0] for x in cus)/base:.3f}x)"
    print(line)
    for v, xs in sorted(d.items()):
        if v == "default": continue
        med = statistics.median(x[0] for x in xs)
        print(f"    {v:6s} {med*1e3:7.1f} us  default is {med/base:.3f}x as fast  short_y {xs[0][1]}")
PY
MET=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
for v in auto direct; do
  timeout 60 ncu --metrics $MET --clock-control none -k regex:dasp_spmv --launch-skip 12 --launch-count 1 --csv \
    $b/tcsparse bench gen:short:rows=4000000,cols=4000000,seed=7 --methods dasp --precisions fp64 --plan-builds 1 --runs 3 --param short_y=$v > $R/ncu-short-$v.csv 2>/dev/null
  echo "== ncu short_y=$v rc $?"; grep -o '"[a-z_.]*sum[a-z_.]*","[a-z]*","[0-9,.]*"' $R/ncu-short-$v.csv
done
echo "[$SECONDS s] external"
timeout 150 bash scripts/external-dasp.sh run --generate short_4m --precisions fp64 --cli $b/tcsparse \
  --matrix-dir .external/matrices --out $R/external --budget-s 100 > $R/external-run.txt 2>&1
echo "external rc $? [$SECONDS s]"
cat $R/external/comparison.md 2>/dev/null | tail -5
cd $R && gzip *.jsonl && cat tests-*.txt | gzip > run274-gpu-tests.txt.gz && rm tests-*.txt && tar czf $OUT/run274.tgz . && cp run274.log $OUT/
echo "[$SECONDS s]"

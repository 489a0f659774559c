#!/usr/bin/env bash
# Run 282: DASP row_order=internal (the layout in the plan's row order, x gathered into it and y
# out of it around the kernel, on the plan's own vectors) against the caller order and against
# row_order=plan (the kernel alone, vectors already in the plan's order). GPU tests of DASP
# (8 shards), memcheck of the new tests; the large suite and three hbp-suite matrices (fp64,
# fp16), the default suite (fp64).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run282.log) 2>&1
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
  --gtest_filter='DaspGpu.InternalRowOrder*' --gtest_brief=1 > $R/run282-memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/run282-memcheck.txt | tail -3
echo "[$SECONDS s] bench"
V="--variant internal:row_order=internal --variant plan:row_order=plan"
timeout 330 $b/tcsparse bench --suite large --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 1 --runs 20 $V \
  --output $R/run282-large.jsonl > /dev/null 2>&1; echo "large rc $? [$SECONDS s]"
timeout 100 $b/tcsparse bench gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=1000000,exponent=2.3,seed=62 \
  gen:rmat:scale=20,edge_factor=48,seed=65 gen:rmat:scale=21,edge_factor=48,seed=66 \
  --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 1 --runs 20 $V --output $R/run282-hbp.jsonl > /dev/null 2>&1; echo "hbp rc $? [$SECONDS s]"
timeout 100 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64 --plan-builds 1 --runs 30 \
  --variant internal:row_order=internal --output $R/run282-default.jsonl > /dev/null 2>&1; echo "default rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: print("error", r.get("matrix"), r.get("variant"), r.get("error")); continue
        t[(r["matrix"][:28], r["cols"], r["precision"], r["method"])][r.get("variant") or "default"].append(r["median_ms"])
for k, d in sorted(t.items()):
    if k[3] != "dasp": continue
    base = statistics.median(d["default"])
    cus = statistics.median(t[(k[0], k[1], k[2], "cusparse")]["default"])
    line = f"{k[0]:28s} cols {k[1]:9d} {k[2]} caller {base*1e3:8.1f} us ({cus/base:.3f}x cusparse)"
    for v in ("internal", "plan"):
        if v in d:
            med = statistics.median(d[v]); line += f" | {v} {med*1e3:8.1f} ({base/med:.3f}x caller, {cus/med:.3f}x cus)"
    print(line)
PY
cd $R && gzip *.jsonl && cat tests-*.txt | gzip > run282-gpu-tests.txt.gz && rm tests-*.txt && tar czf $OUT/run282.tgz . && cp run282.log $OUT/
echo "[$SECONDS s]"

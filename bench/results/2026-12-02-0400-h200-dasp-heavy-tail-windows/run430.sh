#!/usr/bin/env bash
# Run 430 (issue 8, DASP): the final binary of this change (the default suite now holds three
# mid-size matrices). The GPU tests of DASP, the plan build and the automatic choice (16 shards);
# memcheck of the device build's equality tests and the dense-rows test; the default suite
# (three plan builds a case); the pruned 1024 x 4096 weights at 70 % (0.93x in fp64, run 429) with
# long_groups_per_warp as variants.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run430.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/tcsparse_gpu_tests.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_brief=1 \
    --gtest_filter='*Dasp*:*dasp*:PlanBuild*:*AutoPlan*:*AutoChoice*' > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo "[$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
(cd $R && cat tests-*.txt | gzip > run430-gpu-tests.txt.gz && rm tests-*.txt)
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $b/tcsparse_gpu_tests --gtest_brief=1 \
  --gtest_filter='*DeviceBuildEqualsHostBuild*:DaspGpu.DenseLongRows*' > $R/run430-memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)|FAILED  \]" $R/run430-memcheck.txt | head
timeout 200 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16,bf16 \
  --runs 30 --plan-builds 3 --output $R/run430-default.jsonl > $R/bench-default.txt 2>&1
echo "default rc $? [$SECONDS s]"; tail -1 $R/bench-default.txt
timeout 60 $b/tcsparse bench gen:pruned:rows=1024,cols=4096,sparsity=0.7,seed=11 --methods dasp,cusparse --precisions fp64,fp16 \
  --runs 30 --plan-builds 1 --variant lg4:long_groups_per_warp=4 --variant lg8:long_groups_per_warp=8 \
  --variant lg16:long_groups_per_warp=16 --variant bif2:blocks_in_flight=2 --variant pl1:pipelined_loads=1 \
  --output $R/run430-pruned-1024.jsonl > $R/bench-pruned.txt 2>&1
echo "pruned rc $? [$SECONDS s]"; tail -1 $R/bench-pruned.txt
python3 - $R <<'PY'
import json, sys, collections, math
R = sys.argv[1]
def gm(xs): return math.exp(sum(map(math.log, xs)) / len(xs))
for f in ("run430-default.jsonl", "run430-pruned-1024.jsonl"):
    t = collections.defaultdict(dict); build = {}
    for l in open(f"{R}/{f}"):
        r = json.loads(l)
        if "median_ms" not in r: continue
        m = r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else "")
        k = (r["precision"], r["matrix"][:40], r["nnz"])
        t[k][m] = r["median_ms"]
        if m == "dasp": build[k] = r.get("plan_build_ms", 0) / r["median_ms"]
    geo = collections.defaultdict(list)
    for k, v in sorted(t.items()):
        s = {m: v["cusparse"] / x for m, x in v.items() if m != "cusparse"}
        print(f, k, " ".join(f"{m} {x:.3f}" for m, x in sorted(s.items())), "build %.0f SpMV-times" % build.get(k, 0))
        geo[k[0]].append(s["dasp"])
    for p, xs in sorted(geo.items()):
        print(f, p, "geomean", round(gm(xs), 3), "min", round(min(xs), 3), len(xs))
PY
cd $R && gzip -f *.jsonl && echo "[$SECONDS s]"
cd $OUT && tar cf run430.tar r && rm -rf r

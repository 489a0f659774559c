#!/usr/bin/env bash
# Run 439 (issue 8, DASP): run 438 again with the fix it called for: where regular_block_min_fill=auto
# takes fill 0, warps take row-blocks by the counts at fill 0 (as with fill 0 asked for), not
# by those at the paper's fill (run 438: delaunay_n16 x20 and cti x60 ran 0.97x / 0.89x as fast
# as the paper's fill, with 4 row-blocks a warp instead of 2). kDaspAllRegularMaxGrowth 0.4:
#  A. fp64, auto against the paper's fill (regular_block_min_fill=0.75) and fill 0 as variants,
#     two passes: run 437's matrices whose growth lies in 0.15-0.4, and held-out ones (replicas
#     of six more real matrices, uniform rows of 4-10 values), two of them above 0.4;
#  B. the default suite in fp64, three plan builds a case;
#  C. the GPU tests of DASP, the plan build and the automatic choice (16 shards), memcheck of the
#     device build's equality tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run439.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
S=.mx/suitesparse
fitted=(  # run 437
  gen:replicate:file=$S/rajat01.mtx.gz,copies=100,seed=301 gen:replicate:file=$S/rajat01.mtx.gz,copies=200,seed=211
  gen:replicate:file=$S/rajat01.mtx.gz,copies=463,seed=10 gen:replicate:file=$S/delaunay_n16.mtx.gz,copies=20,seed=303
  gen:replicate:file=$S/nh2010.mtx.gz,copies=40,seed=307 gen:replicate:file=$S/de2010.mtx.gz,copies=60,seed=311
  gen:replicate:file=$S/cti.mtx.gz,copies=60,seed=310 gen:replicate:file=$S/vt2010.mtx.gz,copies=60,seed=313
)
held_out=(
  gen:replicate:file=$S/bcspwr10.mtx.gz,copies=400,seed=401 gen:replicate:file=$S/adder_dcop_05.mtx.gz,copies=600,seed=402
  gen:replicate:file=$S/watt_2.mtx.gz,copies=600,seed=403 gen:replicate:file=$S/cora.mtx.gz,copies=500,seed=404
  gen:replicate:file=$S/G51.mtx.gz,copies=600,seed=405 gen:replicate:file=$S/cryg2500.mtx.gz,copies=600,seed=406
  gen:random:rows=2000000,cols=2000000,dist=uniform,min=5,max=9,seed=407
  gen:random:rows=3000000,cols=3000000,dist=uniform,min=4,max=8,seed=408
  gen:random:rows=2000000,cols=2000000,dist=uniform,min=6,max=10,seed=409
  gen:random:rows=2000000,cols=2000000,dist=uniform,min=5,max=6,seed=410
)
for pass in 1 2; do
  timeout 200 $b/tcsparse bench "${fitted[@]}" "${held_out[@]}" --methods dasp,cusparse --precisions fp64 --runs 30 \
    --variant paper:regular_block_min_fill=0.75 --variant fill0:regular_block_min_fill=0 \
    --output $R/run439-fill-$pass.jsonl > $R/bench-fill-$pass.txt 2>&1
  echo "fill pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-fill-$pass.txt
done
timeout 200 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64 \
  --runs 30 --plan-builds 3 --output $R/run439-default.jsonl > $R/bench-default.txt 2>&1
echo "default rc $? [$SECONDS s]"; tail -1 $R/bench-default.txt
python3 - $R <<'PY'
import json, sys, collections, math, glob, statistics
R = sys.argv[1]
def gm(xs): return math.exp(sum(map(math.log, xs)) / len(xs))
t = collections.defaultdict(lambda: collections.defaultdict(list)); one = {}
for f in sorted(glob.glob(f"{R}/run439-fill-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        k = (r["matrix"][-44:], r["nnz"])
        m = r["method"] + ("/" + r["variant"] if r.get("variant") else "")
        t[k][m].append(r["median_ms"]); one[(k, m)] = r
geo = collections.defaultdict(list)
for k in sorted(t, key=lambda k: (one[(k, "dasp/fill0")]["details"]["stored_values"] - one[(k, "dasp/paper")]["details"]["stored_values"]) / k[1]):
    med = {m: statistics.median(v) for m, v in t[k].items()}
    growth = (one[(k, "dasp/fill0")]["details"]["stored_values"] - one[(k, "dasp/paper")]["details"]["stored_values"]) / k[1]
    fired = one[(k, "dasp")]["details"]["nnz"]["medium_irregular"] == 0
    c = med["cusparse"]
    print(f"growth {growth:.3f} {'fill 0' if fired else 'paper '} auto {c / med['dasp']:.3f} paper {c / med['dasp/paper']:.3f} fill0 {c / med['dasp/fill0']:.3f}x cuSPARSE, auto/paper {med['dasp/paper'] / med['dasp']:.3f}  {k[0]} {k[1]}")
    geo["auto"].append(c / med["dasp"]); geo["paper"].append(c / med["dasp/paper"])
    if fired and growth > 0.15: geo["newly fired auto/paper"].append(med["dasp/paper"] / med["dasp"])
for lab, xs in geo.items(): print(lab, "geomean", round(gm(xs), 3), "min", round(min(xs), 3), len(xs))
g = collections.defaultdict(list)
for l in open(f"{R}/run439-default.jsonl"):
    r = json.loads(l)
    if "median_ms" in r: g[(r["precision"], r["matrix"])].append(r)
by = collections.defaultdict(list)
for (p, m), rs in sorted(g.items()):
    d = {r["method"]: r for r in rs}
    s = d["cusparse"]["median_ms"] / d["dasp"]["median_ms"]; by[p].append(s)
    print(p, m, d["dasp"]["nnz"], f"dasp {s:.3f}x cuSPARSE build {d['dasp']['plan_build_ms'] / d['dasp']['median_ms']:.0f} SpMV-times",
          "irregular", d["dasp"]["details"]["nnz"]["medium_irregular"])
for p, xs in sorted(by.items()): print(p, "default suite geomean", round(gm(xs), 3), "min", round(min(xs), 3), len(xs))
PY
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_brief=1 \
    --gtest_filter='*Dasp*:*dasp*:PlanBuild*:*AutoPlan*:*AutoChoice*:HostUploadTest.*:DeviceTest.*:DeviceCsrViewValidation.*' > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo "[$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
(cd $R && cat tests-*.txt | gzip > run439-gpu-tests.txt.gz && rm tests-*.txt)
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $b/tcsparse_gpu_tests --gtest_brief=1 \
  --gtest_filter='*DeviceBuildEqualsHostBuild*' > $R/run439-memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)|FAILED  \]" $R/run439-memcheck.txt | head
cd $R && gzip -f *.jsonl && rm -f bench-*.txt && echo "[$SECONDS s]"

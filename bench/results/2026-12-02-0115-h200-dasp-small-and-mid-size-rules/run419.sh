#!/usr/bin/env bash
# Run 419: DASP with 64 among the small-matrix MAX_LEN candidates (issue 8). The GPU tests of DASP,
# the plan build and the automatic choice (16 shards); memcheck of the device build's equality
# tests; held-out matrices of 0.3-1.05 M nonzeros (none of run 418's) with every candidate as a
# variant; matrices of 1.1-4 M nonzeros (above the small-matrix bound, MAX_LEN 256) with the
# candidates as variants; the repository's real matrices (.mx/real), fp64 / fp16 / bf16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run419.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
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
(cd $R && cat tests-*.txt | gzip > run419-gpu-tests.txt.gz && rm tests-*.txt)
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $b/tcsparse_gpu_tests --gtest_brief=1 \
  --gtest_filter='*DeviceBuildEqualsHostBuild*' > $R/run419-memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)|FAILED  \]" $R/run419-memcheck.txt | head
V="--variant m16:max_medium_row_length=16 --variant m32:max_medium_row_length=32 --variant m64:max_medium_row_length=64 --variant m256:max_medium_row_length=256"
held=(
  gen:rmat:scale=16,edge_factor=12,seed=7
  gen:rmat:scale=15,edge_factor=24,seed=8
  gen:rmat:scale=14,edge_factor=32,seed=9
  gen:rmat:scale=13,edge_factor=96,seed=9
  gen:rmat:scale=17,edge_factor=6,seed=5
  gen:random:rows=200000,cols=200000,dist=power_law,min=1,max=50000,exponent=2.5,seed=21
  gen:random:rows=50000,cols=50000,dist=power_law,min=4,max=2000,exponent=1.8,seed=22
  gen:random:rows=10000,cols=10000,dist=uniform,min=65,max=130,seed=23
  gen:random:rows=5000,cols=20000,dist=uniform,min=100,max=250,seed=24
  gen:random:rows=20000,cols=20000,dist=uniform,min=33,max=48,seed=25
  gen:banded:n=80000,bandwidth=5,seed=26
  gen:stencil2d:nx=400,ny=400,seed=11
  gen:pruned:rows=1024,cols=4096,sparsity=0.85,seed=27
  gen:pruned:rows=2048,cols=2048,sparsity=0.8,seed=28
  gen:short:rows=200000,cols=200000,seed=15
)
timeout 150 $b/tcsparse bench "${held[@]}" --methods dasp,cusparse --precisions fp64,fp16,bf16 \
  --runs 30 --plan-builds 1 $V --output $R/run419-held-out.jsonl > $R/bench-held.txt 2>&1
echo "held-out rc $? [$SECONDS s]"; tail -1 $R/bench-held.txt
mid=(
  gen:random:rows=150000,cols=150000,dist=power_law,min=1,max=20000,exponent=2,seed=5
  gen:random:rows=300000,cols=300000,dist=power_law,min=1,max=20000,exponent=2,seed=31
  gen:rmat:scale=16,edge_factor=24,seed=32
  gen:rmat:scale=17,edge_factor=16,seed=33
  gen:rmat:scale=18,edge_factor=8,seed=34
  gen:random:rows=100000,cols=100000,dist=uniform,min=1,max=39,seed=35
  gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61
  gen:replicate:file=.mx/suitesparse/cage11.mtx.gz,copies=4,seed=10
)
timeout 150 $b/tcsparse bench "${mid[@]}" --methods dasp,cusparse --precisions fp64,fp16,bf16 \
  --runs 30 --plan-builds 1 $V --output $R/run419-mid.jsonl > $R/bench-mid.txt 2>&1
echo "mid rc $? [$SECONDS s]"; tail -1 $R/bench-mid.txt
timeout 120 $b/tcsparse bench .mx/real --methods dasp,cusparse --precisions fp64,fp16,bf16 --plan-builds 1 --runs 10 \
  --warmup-ms 2 --output $R/run419-real.jsonl > $R/bench-real.txt 2>&1
echo "real rc $? [$SECONDS s]"; tail -1 $R/bench-real.txt
python3 - $R <<'PY'
import json, sys, collections, math
for name in ("held-out", "mid", "real"):
    t = collections.defaultdict(dict); det = {}
    for l in open(f"{sys.argv[1]}/run419-{name}.jsonl"):
        r = json.loads(l)
        if "median_ms" not in r: continue
        lab = r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else "")
        k = (r["precision"], r["matrix"][-50:], r["nnz"])
        t[k][lab] = r["median_ms"] * 1e3
        if r["method"] == "dasp" and not r.get("variant"):
            det[k] = (r.get("details") or {}).get("max_medium_row_length")
    geo = collections.defaultdict(list)
    for k, v in sorted(t.items()):
        c = v.get("cusparse")
        if not c or "dasp" not in v: continue
        if name != "real" or c / v["dasp"] < 1.1:
            print(name, k, "cusparse %.1f us" % c, "maxlen", det.get(k), " ".join(f"{m} {c / x:.3f}" for m, x in sorted(v.items()) if m != "cusparse"))
        for m, x in v.items():
            if m != "cusparse": geo[(k[0], m)].append(c / x)
    for (p, m), xs in sorted(geo.items()):
        print(name, p, m, "geomean", round(math.exp(sum(map(math.log, xs)) / len(xs)), 3), "min", round(min(xs), 3), len(xs))
PY
cd $R && gzip -f *.jsonl && echo "[$SECONDS s]"
cd $OUT && tar cf run419.tar r && rm -rf r

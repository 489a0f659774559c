#!/usr/bin/env bash
# Run 428 (issue 8, DASP): this change's binary (tcsparse) against 33d7e45's (tcsparse_old):
# - MAX_LEN 64 where rows above 256 values are at least as many as the medium rows (every
#   precision, >= 1 M nonzeros: kDaspFewMediumRowsMaxMediumRowLength);
# - the dense-long-rows rule (fp64) only from 16 M nonzeros (kDaspDenseRowsMinNnz);
# - fp64 matrices of 1-4 M nonzeros with a row longer than one long-row task: tasks of 16 groups
#   (kDaspMidMatrixLongGroupsPerWarp).
# The GPU tests of DASP, the plan build and the automatic choice (16 shards); memcheck of the
# device build's equality tests; the mid-size, held-out and pruned matrices of run 427 with both
# binaries, alternating, two passes; the default suite with both; the real matrices with this one.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run428.log) 2>&1
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
(cd $R && cat tests-*.txt | gzip > run428-gpu-tests.txt.gz && rm tests-*.txt)
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $b/tcsparse_gpu_tests --gtest_brief=1 \
  --gtest_filter='*DeviceBuildEqualsHostBuild*' > $R/run428-memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)|FAILED  \]" $R/run428-memcheck.txt | head
mats=(
  gen:random:rows=150000,cols=150000,dist=power_law,min=1,max=20000,exponent=2,seed=5
  gen:random:rows=300000,cols=300000,dist=power_law,min=1,max=20000,exponent=2,seed=31
  gen:rmat:scale=16,edge_factor=24,seed=32 gen:rmat:scale=17,edge_factor=16,seed=33 gen:rmat:scale=18,edge_factor=8,seed=34
  gen:random:rows=100000,cols=100000,dist=uniform,min=1,max=39,seed=35
  gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61
  gen:replicate:file=.mx/suitesparse/cage11.mtx.gz,copies=4,seed=10
  gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=67
  gen:random:rows=50000,cols=50000,dist=power_law,min=4,max=2000,exponent=1.8,seed=22
  gen:random:rows=30000,cols=30000,dist=power_law,min=1,max=10000,exponent=1.6,seed=44
  gen:rmat:scale=19,edge_factor=6,seed=54
  gen:random:rows=500000,cols=500000,dist=power_law,min=1,max=50000,exponent=2.2,seed=55
  gen:rmat:scale=20,edge_factor=3,seed=71 gen:rmat:scale=18,edge_factor=12,seed=72 gen:rmat:scale=19,edge_factor=4,seed=73
  gen:random:rows=1000000,cols=1000000,dist=power_law,min=1,max=100000,exponent=2.5,seed=74
  gen:random:rows=200000,cols=200000,dist=power_law,min=2,max=30000,exponent=1.9,seed=75
  gen:rmat:scale=17,edge_factor=24,seed=76
  gen:pruned:rows=4096,cols=4096,sparsity=0.8,seed=81 gen:pruned:rows=4096,cols=4096,sparsity=0.85,seed=82
  gen:pruned:rows=4096,cols=4096,sparsity=0.9,seed=53 gen:pruned:rows=4096,cols=4096,sparsity=0.95,seed=83
  gen:pruned:rows=8192,cols=8192,sparsity=0.9,seed=84 gen:pruned:rows=11008,cols=4096,sparsity=0.95,seed=85
  gen:llm:rows=4096,cols=4096,sparsity=0.9,profile=skewed,seed=86 gen:llm:rows=4096,cols=11008,sparsity=0.95,profile=skewed,seed=87
  gen:llm:rows=14336,cols=4096,sparsity=0.9,profile=uniform,seed=88 gen:llm:rows=4096,cols=4096,sparsity=0.95,profile=skewed,seed=89
  gen:pruned:rows=11008,cols=4096,sparsity=0.9,seed=90 gen:llm:rows=14336,cols=4096,sparsity=0.9,profile=skewed,seed=91
  gen:pruned:rows=12288,cols=12288,sparsity=0.9,seed=92 gen:llm:rows=4096,cols=14336,sparsity=0.9,profile=skewed,seed=93
)
for pass in 1 2; do
  for bin in tcsparse tcsparse_old; do
    timeout 100 $b/$bin bench "${mats[@]}" --methods dasp,cusparse --precisions fp64,fp16,bf16 --runs 30 --plan-builds 1 \
      --output $R/run428-mats-$bin-$pass.jsonl > $R/bench-mats-$bin-$pass.txt 2>&1
    echo "mats $bin $pass rc $? [$SECONDS s]"; tail -1 $R/bench-mats-$bin-$pass.txt
  done
done
for bin in tcsparse tcsparse_old; do
  timeout 150 $b/$bin bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16,bf16 \
    --runs 20 --plan-builds 3 --output $R/run428-default-$bin.jsonl > $R/bench-default-$bin.txt 2>&1
  echo "default $bin rc $? [$SECONDS s]"; tail -1 $R/bench-default-$bin.txt
done
timeout 100 $b/tcsparse bench .mx/real --methods dasp,cusparse --precisions fp64,fp16,bf16 --plan-builds 1 --runs 10 \
  --warmup-ms 2 --output $R/run428-real.jsonl > $R/bench-real.txt 2>&1
echo "real rc $? [$SECONDS s]"; tail -1 $R/bench-real.txt
python3 - $R <<'PY'
import json, sys, collections, math, glob, statistics
R = sys.argv[1]
def load(pattern):
    t = collections.defaultdict(lambda: collections.defaultdict(list)); det = {}
    for f in sorted(glob.glob(f"{R}/{pattern}")):
        for l in open(f):
            r = json.loads(l)
            if "median_ms" not in r: continue
            k = (r["precision"], r["matrix"][-45:], r["nnz"])
            t[k][r["method"]].append(r["median_ms"] * 1e3)
            if r["method"] == "dasp":
                d = r.get("details") or {}
                det[k] = (d.get("max_medium_row_length"), d.get("long_groups_per_warp"))
    return {k: {m: statistics.median(v) for m, v in by.items()} for k, by in t.items()}, det
def gm(xs): return math.exp(sum(map(math.log, xs)) / len(xs))
for name in ("mats", "default"):
    new, dn = load(f"run428-{name}-tcsparse-*.jsonl") if name == "mats" else load(f"run428-{name}-tcsparse.jsonl")
    old, do = load(f"run428-{name}-tcsparse_old-*.jsonl") if name == "mats" else load(f"run428-{name}-tcsparse_old.jsonl")
    geo = collections.defaultdict(list)
    for k in sorted(new):
        if k not in old or "dasp" not in new[k]: continue
        sn = new[k]["cusparse"] / new[k]["dasp"]; so = old[k]["cusparse"] / old[k]["dasp"]
        if dn.get(k) != do.get(k) or abs(sn / so - 1) > 0.04 or sn < 0.97:
            print(name, k, "new", dn.get(k), f"{sn:.3f}", "old", do.get(k), f"{so:.3f}", f"new/old {old[k]['dasp'] / new[k]['dasp']:.3f}")
        geo[(k[0], "new over cusparse")].append(sn); geo[(k[0], "old over cusparse")].append(so)
        geo[(k[0], "new over old")].append(old[k]["dasp"] / new[k]["dasp"])
    for (p, lab), xs in sorted(geo.items()):
        print(name, p, lab, "geomean", round(gm(xs), 3), "min", round(min(xs), 3), len(xs))
t, d = load("run428-real.jsonl")
geo = collections.defaultdict(list)
for k, v in sorted(t.items()):
    if "cusparse" not in v or "dasp" not in v: continue
    s = v["cusparse"] / v["dasp"]; geo[k[0]].append(s)
    if s < 1.2: print("real", k, d.get(k), f"{s:.3f}")
for p, xs in sorted(geo.items()):
    print("real", p, "geomean", round(gm(xs), 3), "min", round(min(xs), 3), len(xs))
PY
cd $R && gzip -f *.jsonl && echo "[$SECONDS s]"
cd $OUT && tar cf run428.tar r && rm -rf r

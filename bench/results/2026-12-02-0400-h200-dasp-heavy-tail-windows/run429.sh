#!/usr/bin/env bash
# Run 429 (issue 8, DASP): run 428's change with the dense-long-rows rule bounded by the mean row
# length (kDaspDenseRowsMinMeanLength = 1024) instead of the nonzeros: this binary (tcsparse)
# against 33d7e45's (tcsparse_old) on pruned and LLM-like weights, two passes alternating, with
# MAX_LEN 64 as a variant for the dense-rows cases; the GPU tests of DASP, the plan build and the
# automatic choice (16 shards); memcheck of the device build's equality tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run429.log) 2>&1
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
(cd $R && cat tests-*.txt | gzip > run429-gpu-tests.txt.gz && rm tests-*.txt)
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $b/tcsparse_gpu_tests --gtest_brief=1 \
  --gtest_filter='*DeviceBuildEqualsHostBuild*:DaspGpu.DenseLongRows*' > $R/run429-memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)|FAILED  \]" $R/run429-memcheck.txt | head
mats=(
  gen:pruned:rows=1024,cols=4096,sparsity=0.7,seed=11 gen:pruned:rows=2048,cols=8192,sparsity=0.85,seed=94
  gen:pruned:rows=4096,cols=4096,sparsity=0.8,seed=81 gen:pruned:rows=8192,cols=8192,sparsity=0.9,seed=84
  gen:pruned:rows=12288,cols=12288,sparsity=0.9,seed=92 gen:pruned:rows=16384,cols=16384,sparsity=0.9,seed=9
  gen:llm:rows=4096,cols=14336,sparsity=0.9,profile=skewed,seed=93 gen:llm:rows=4096,cols=14336,sparsity=0.9,profile=uniform,seed=95
  gen:llm:rows=4096,cols=11008,sparsity=0.9,profile=uniform,seed=96 gen:llm:rows=14336,cols=4096,sparsity=0.9,profile=uniform,seed=88
  gen:pruned:rows=11008,cols=4096,sparsity=0.9,seed=90 gen:pruned:rows=4096,cols=4096,sparsity=0.9,seed=53
  gen:llm:rows=4096,cols=4096,sparsity=0.9,profile=skewed,seed=86 gen:pruned:rows=4096,cols=4096,sparsity=0.85,seed=82
)
for pass in 1 2; do
  for bin in tcsparse tcsparse_old; do
    timeout 100 $b/$bin bench "${mats[@]}" --methods dasp,cusparse --precisions fp64,fp16 --runs 30 --plan-builds 1 \
      --variant m64:max_medium_row_length=64 --output $R/run429-mats-$bin-$pass.jsonl > $R/bench-mats-$bin-$pass.txt 2>&1
    echo "mats $bin $pass rc $? [$SECONDS s]"; tail -1 $R/bench-mats-$bin-$pass.txt
  done
done
python3 - $R <<'PY'
import json, sys, collections, math, glob, statistics
R = sys.argv[1]
def load(pattern):
    t = collections.defaultdict(lambda: collections.defaultdict(list)); det = {}
    for f in sorted(glob.glob(f"{R}/{pattern}")):
        for l in open(f):
            r = json.loads(l)
            if "median_ms" not in r: continue
            k = (r["precision"], r["matrix"][-48:], r["nnz"])
            m = r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else "")
            t[k][m].append(r["median_ms"] * 1e3)
            if m == "dasp":
                d = r.get("details") or {}
                det[k] = (d.get("max_medium_row_length"), d.get("long_groups_per_warp"))
    return {k: {m: statistics.median(v) for m, v in by.items()} for k, by in t.items()}, det
def gm(xs): return math.exp(sum(map(math.log, xs)) / len(xs))
new, dn = load("run429-mats-tcsparse-*.jsonl"); old, do = load("run429-mats-tcsparse_old-*.jsonl")
geo = collections.defaultdict(list)
for k in sorted(new):
    c = new[k]["cusparse"]
    sn = c / new[k]["dasp"]; so = old[k]["cusparse"] / old[k]["dasp"]; s64 = c / new[k]["dasp[m64]"]
    print(k, "new", dn.get(k), f"{sn:.3f}", "old", do.get(k), f"{so:.3f}", f"m64 {s64:.3f}", f"new/old {old[k]['dasp'] / new[k]['dasp']:.3f}")
    geo[(k[0], "new")].append(sn); geo[(k[0], "old")].append(so); geo[(k[0], "m64")].append(s64)
for (p, lab), xs in sorted(geo.items()):
    print(p, lab, "over cusparse geomean", round(gm(xs), 3), "min", round(min(xs), 3), len(xs))
PY
cd $R && gzip -f *.jsonl && echo "[$SECONDS s]"
cd $OUT && tar cf run429.tar r && rm -rf r

#!/usr/bin/env bash
# Run 424 (issue 8, DASP): the final binary of this change (MAX_LEN 64 among the small-matrix
# candidates; fp64 matrices of 1-4 M nonzeros at 64 where their long rows pad little; small
# matrices whose longest row is > 16x the mean and > 1024 values split over warps of 4 groups).
# As run 421, with run 423's matrices added to the small ones, and without the default suite.
# The GPU tests of DASP, the plan build and the automatic choice (16 shards); memcheck of the device
# build's equality tests; the small and mid-size matrices of runs 418-420 with this binary and with
# run 419's (tcsparse_419: the 64 candidate only), alternating, two passes each; the default suite
# (3 plan builds), the rajat01 replica at 20 M nonzeros and the real matrices with this binary.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run424.log) 2>&1
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
(cd $R && cat tests-*.txt | gzip > run424-gpu-tests.txt.gz && rm tests-*.txt)
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $b/tcsparse_gpu_tests --gtest_brief=1 \
  --gtest_filter='*DeviceBuildEqualsHostBuild*' > $R/run424-memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)|FAILED  \]" $R/run424-memcheck.txt | head
small=(
  gen:rmat:scale=15,edge_factor=16,seed=13 gen:rmat:scale=15,edge_factor=32,seed=3 gen:rmat:scale=16,edge_factor=8,seed=3
  gen:rmat:scale=16,edge_factor=16,seed=3 gen:rmat:scale=14,edge_factor=48,seed=3
  gen:random:rows=100000,cols=100000,dist=power_law,min=1,max=5000,exponent=2,seed=14
  gen:random:rows=120000,cols=120000,dist=power_law,min=1,max=100000,exponent=2.3,seed=61
  gen:random:rows=60000,cols=60000,dist=uniform,min=1,max=30,seed=4 gen:random:rows=30000,cols=30000,dist=uniform,min=20,max=40,seed=4
  gen:random:rows=20000,cols=20000,dist=uniform,min=30,max=70,seed=4 gen:stencil3d:nx=30,ny=30,nz=30,seed=12
  gen:pruned:rows=2048,cols=2048,sparsity=0.9,seed=16 gen:pruned:rows=4096,cols=1024,sparsity=0.8,seed=17 .mx/suitesparse/cage11.mtx.gz
  gen:rmat:scale=16,edge_factor=12,seed=7 gen:rmat:scale=15,edge_factor=24,seed=8 gen:rmat:scale=14,edge_factor=32,seed=9
  gen:rmat:scale=13,edge_factor=96,seed=9 gen:rmat:scale=17,edge_factor=6,seed=5
  gen:random:rows=200000,cols=200000,dist=power_law,min=1,max=50000,exponent=2.5,seed=21
  gen:random:rows=10000,cols=10000,dist=uniform,min=65,max=130,seed=23 gen:random:rows=5000,cols=20000,dist=uniform,min=100,max=250,seed=24
  gen:random:rows=20000,cols=20000,dist=uniform,min=33,max=48,seed=25 gen:banded:n=80000,bandwidth=5,seed=26
  gen:stencil2d:nx=400,ny=400,seed=11 gen:short:rows=200000,cols=200000,seed=15
  gen:pruned:rows=1024,cols=4096,sparsity=0.85,seed=27 gen:pruned:rows=2048,cols=2048,sparsity=0.8,seed=28
  gen:rmat:scale=12,edge_factor=128,seed=41 gen:rmat:scale=14,edge_factor=64,seed=42 gen:rmat:scale=16,edge_factor=4,seed=43
  gen:rmat:scale=11,edge_factor=192,seed=51 gen:rmat:scale=12,edge_factor=64,seed=52
  gen:random:rows=20000,cols=20000,dist=power_law,min=4,max=1800,exponent=1.7,seed=66 gen:rmat:scale=11,edge_factor=96,seed=63
  gen:rmat:scale=12,edge_factor=48,seed=61 gen:rmat:scale=12,edge_factor=96,seed=65 gen:rmat:scale=13,edge_factor=32,seed=64
  gen:random:rows=40000,cols=40000,dist=power_law,min=2,max=1500,exponent=1.9,seed=67
)
mid=(
  gen:random:rows=150000,cols=150000,dist=power_law,min=1,max=20000,exponent=2,seed=5
  gen:random:rows=300000,cols=300000,dist=power_law,min=1,max=20000,exponent=2,seed=31
  gen:rmat:scale=16,edge_factor=24,seed=32 gen:rmat:scale=17,edge_factor=16,seed=33 gen:rmat:scale=18,edge_factor=8,seed=34
  gen:random:rows=100000,cols=100000,dist=uniform,min=1,max=39,seed=35
  gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61
  gen:replicate:file=.mx/suitesparse/cage11.mtx.gz,copies=4,seed=10
  gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=67
  gen:random:rows=50000,cols=50000,dist=power_law,min=4,max=2000,exponent=1.8,seed=22
  gen:random:rows=30000,cols=30000,dist=power_law,min=1,max=10000,exponent=1.6,seed=44
  gen:pruned:rows=4096,cols=4096,sparsity=0.9,seed=53 gen:rmat:scale=19,edge_factor=6,seed=54
  gen:random:rows=500000,cols=500000,dist=power_law,min=1,max=50000,exponent=2.2,seed=55
)
for pass in 1 2; do
  for bin in tcsparse tcsparse_419; do
    timeout 60 $b/$bin bench "${small[@]}" --methods dasp,cusparse --precisions fp64,fp16,bf16 --runs 30 --plan-builds 1 \
      --output $R/run424-small-$bin-$pass.jsonl > $R/bench-small-$bin-$pass.txt 2>&1
    echo "small $bin $pass rc $? [$SECONDS s]"; tail -1 $R/bench-small-$bin-$pass.txt
    timeout 60 $b/$bin bench "${mid[@]}" --methods dasp,cusparse --precisions fp64,fp16,bf16 --runs 30 --plan-builds 1 \
      --output $R/run424-mid-$bin-$pass.jsonl > $R/bench-mid-$bin-$pass.txt 2>&1
    echo "mid $bin $pass rc $? [$SECONDS s]"; tail -1 $R/bench-mid-$bin-$pass.txt
  done
done
timeout 100 $b/tcsparse bench .mx/real --methods dasp,cusparse --precisions fp64,fp16,bf16 --plan-builds 1 --runs 10 \
  --warmup-ms 2 --output $R/run424-real.jsonl > $R/bench-real.txt 2>&1
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
for name in ("small", "mid"):
    new, dn = load(f"run424-{name}-tcsparse-*.jsonl"); old, do = load(f"run424-{name}-tcsparse_419-*.jsonl")
    geo = collections.defaultdict(list)
    for k in sorted(new):
        if k not in old: continue
        sn = new[k]["cusparse"] / new[k]["dasp"]; so = old[k]["cusparse"] / old[k]["dasp"]
        if dn.get(k) != do.get(k) or abs(sn / so - 1) > 0.05:
            print(name, k, "new", dn.get(k), f"{sn:.3f}", "run419 binary", do.get(k), f"{so:.3f}", f"new/old {old[k]['dasp'] / new[k]['dasp']:.3f}")
        geo[(k[0], "new over cusparse")].append(sn); geo[(k[0], "run419 binary over cusparse")].append(so)
        geo[(k[0], "new over run419 binary")].append(old[k]["dasp"] / new[k]["dasp"])
    for (p, lab), xs in sorted(geo.items()):
        print(name, p, lab, "geomean", round(gm(xs), 3), "min", round(min(xs), 3), len(xs))
for name in ("real",):
    t, d = load(f"run424-{name}.jsonl")
    geo = collections.defaultdict(list)
    for k, v in sorted(t.items()):
        if "cusparse" not in v or "dasp" not in v: continue
        s = v["cusparse"] / v["dasp"]; geo[k[0]].append(s)
        if name == "default" or s < 1.2: print(name, k, d.get(k), f"{s:.3f}")
    for p, xs in sorted(geo.items()):
        print(name, p, "geomean", round(gm(xs), 3), "min", round(min(xs), 3), len(xs))
PY
cd $R && gzip -f *.jsonl && echo "[$SECONDS s]"
cd $OUT && tar cf run424.tar r && rm -rf r

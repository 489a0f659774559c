#!/usr/bin/env bash
# Run 427 (issue 8): the levers run 426 found, tried wider (the binary of 33d7e45):
# - fp64 matrices of 1-4 M nonzeros (MAX_LEN 64 there): long_groups_per_warp 16 / 8, MAX_LEN 128
#   (R-MAT 19 with 6 edges a vertex: 0.86x cuSPARSE, 1.10x with 16 groups a long task);
# - fp16 / bf16 pruned weights: MAX_LEN 64 (4096 x 4096 at 90 %: 0.97x -> 1.64x, every row long);
# - heavy-tailed large matrices (one medium row-block a warp, sorted over the whole matrix):
#   medium_row_window 65536 / 262144 (circuit-like 4 M rows 0.93x -> 0.99x at 65536).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run427.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/tcsparse
bench() {  # tag, timeout, then tcsparse bench arguments
  local tag=$1 limit=$2; shift 2; SECONDS=0
  timeout $limit $b/tcsparse bench "$@" --runs 30 --plan-builds 1 --output $R/run427-$tag.jsonl > $R/bench-$tag.txt 2>&1
  echo "bench $tag rc $? [$SECONDS s]"; tail -1 $R/bench-$tag.txt
}
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
held_out=(  # not among the matrices any rule was fitted on
  gen:rmat:scale=20,edge_factor=3,seed=71 gen:rmat:scale=18,edge_factor=12,seed=72 gen:rmat:scale=19,edge_factor=4,seed=73
  gen:random:rows=1000000,cols=1000000,dist=power_law,min=1,max=100000,exponent=2.5,seed=74
  gen:random:rows=200000,cols=200000,dist=power_law,min=2,max=30000,exponent=1.9,seed=75
  gen:rmat:scale=17,edge_factor=24,seed=76
)
pruned=(
  gen:pruned:rows=4096,cols=4096,sparsity=0.8,seed=81 gen:pruned:rows=4096,cols=4096,sparsity=0.85,seed=82
  gen:pruned:rows=4096,cols=4096,sparsity=0.9,seed=53 gen:pruned:rows=4096,cols=4096,sparsity=0.95,seed=83
  gen:pruned:rows=8192,cols=8192,sparsity=0.9,seed=84 gen:pruned:rows=11008,cols=4096,sparsity=0.95,seed=85
  gen:llm:rows=4096,cols=4096,sparsity=0.9,profile=skewed,seed=86 gen:llm:rows=4096,cols=11008,sparsity=0.95,profile=skewed,seed=87
  gen:llm:rows=14336,cols=4096,sparsity=0.9,profile=uniform,seed=88 gen:llm:rows=4096,cols=4096,sparsity=0.95,profile=skewed,seed=89
)
heavy=(
  gen:rmat:scale=20,edge_factor=16,seed=3 gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=20000,exponent=2,seed=5
  gen:rmat:scale=22,edge_factor=16,seed=43 gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=1000000,exponent=2.3,seed=62
  gen:rmat:scale=19,edge_factor=48,seed=64 gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67
  gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=463,seed=10
  gen:random:rows=8000000,cols=8000000,dist=power_law,min=1,max=20000,exponent=2,seed=77
)
bench mid64 90 "${mid[@]}" "${held_out[@]}" --methods dasp,cusparse --precisions fp64 \
  --variant lg16:long_groups_per_warp=16 --variant lg8:long_groups_per_warp=8 --variant m128:max_medium_row_length=128 \
  --variant m256:max_medium_row_length=256 --variant m256lg16:max_medium_row_length=256,long_groups_per_warp=16
bench mid16 90 "${mid[@]}" "${held_out[@]}" "${pruned[@]}" --methods dasp,cusparse --precisions fp16,bf16 \
  --variant m64:max_medium_row_length=64 --variant m128:max_medium_row_length=128 --variant lg16:long_groups_per_warp=16
bench pruned64 60 "${pruned[@]}" --methods dasp,cusparse --precisions fp64 \
  --variant m64:max_medium_row_length=64 --variant m256:max_medium_row_length=256
bench heavy 240 "${heavy[@]}" --methods dasp,cusparse --precisions fp64,fp16 \
  --variant w64k:medium_row_window=65536 --variant w256k:medium_row_window=262144 --variant lg16:long_groups_per_warp=16
python3 - $R <<'PY'
import json, sys, glob, collections, math
for f in sorted(glob.glob(f"{sys.argv[1]}/run427-*.jsonl")):
    t = collections.defaultdict(dict)
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        lab = r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else "")
        t[(r["precision"], r["matrix"][:52], r["nnz"])][lab] = r["median_ms"] * 1e3
    print("==", f.split("/")[-1])
    g = collections.defaultdict(list)
    for k, v in sorted(t.items()):
        c = v["cusparse"]
        print(k, "cusp %.1f" % c, " ".join(f"{m[5:] or 'auto'} {c / x:.3f}" for m, x in sorted(v.items()) if m != "cusparse"))
        for m, x in v.items():
            if m != "cusparse": g[(k[0], m)].append(math.log(c / x))
    for (p, m), xs in sorted(g.items()):
        print("  geomean", p, m, "%.3f" % math.exp(sum(xs) / len(xs)), "min %.3f" % math.exp(min(xs)), len(xs))
PY
cd $R && gzip -f *.jsonl && cd $OUT && tar cf run427.tar r && rm -rf r

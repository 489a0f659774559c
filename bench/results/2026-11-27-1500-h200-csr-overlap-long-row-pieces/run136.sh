#!/usr/bin/env bash
# Run 136 (parameters only, HEAD 377ee4f binary): csr_overlap's long-row pieces smaller than the
# default 8192 nonzeros (run 135: rmat_20's long-row kernel has ~600 tasks for a 2112-block wave),
# on the default suite's large matrices, fp64 / fp32, against cuSPARSE, twice.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run136.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for round in 1 2; do
timeout 200 $b/tcsparse bench gen:rmat:scale=20,edge_factor=16,seed=3 \
  gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=20000,exponent=2,seed=5 \
  gen:long:rows=20000,cols=1000000,length=1000,seed=8 gen:pruned:rows=16384,cols=16384,sparsity=0.9,seed=9 \
  gen:random:rows=100000,cols=100000,dist=power_law,min=1,max=5000,exponent=2,seed=14 gen:rmat:scale=15,edge_factor=16,seed=13 \
  --methods cusparse,csr_overlap --precisions fp64,fp32 \
  --variant p512:long_row_piece=512 --variant p1024:long_row_piece=1024 --variant p2048:long_row_piece=2048 \
  --plan-builds 1 --runs 20 --output $R/pieces-$round.jsonl > /dev/null 2>&1
echo "bench $round rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, os, collections
t = collections.defaultdict(dict)
for rnd in ["1", "2"]:
    for line in open(os.path.join(sys.argv[1], f"pieces-{rnd}.jsonl")):
        r = json.loads(line)
        if not r.get("check_passed"): print("CHECK FAILED", r["matrix"], r["method"], r.get("variant"))
        t[(r["matrix"][:28], r["precision"], rnd)][r["method"] + (":" + r["variant"] if r.get("variant") else "")] = r["median_ms"]
labels = ["csr_overlap", "csr_overlap:p512", "csr_overlap:p1024", "csr_overlap:p2048"]
print("matrix prec round cusparse_us", *labels)
for k, v in sorted(t.items()):
    c = v.get("cusparse")
    print(*k, round(c * 1000, 1), *[f"{c / v[l]:.3f}" if l in v else "-" for l in labels])
PY
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r

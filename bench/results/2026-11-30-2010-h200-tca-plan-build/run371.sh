#!/usr/bin/env bash
# Run 371: hbp's GPU build from host CSR uploads the CSR as a temporary of the pool too (as tca's).
# 1. the hbp GPU tests (16 shards); 2. plan builds (5 each) of `new` against fe0811f's (`base`),
# alternating, two passes: the rajat01 replica, circuit-like 680 k, kron-like 18, mip1-like;
# fp64 and fp16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run371.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*Hbp*:*hbp*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt | gzip -c > $OUT/run371-gpu-tests.txt.gz
M="gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=1
gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61
gen:rmat:scale=18,edge_factor=48,seed=63
gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67"
for pass in 1 2; do for v in base new; do
  SECONDS=0
  timeout 100 $b/tcsparse_$v bench $M --methods hbp --precisions fp64,fp16 --runs 10 --plan-builds 5 \
    --output $R/hbp-$v-$pass.jsonl > $R/hbp-$v-$pass.txt 2>&1
  echo "hbp $v $pass rc $? [$SECONDS s]"
done; done
python3 - $R <<'PY'
import json, sys, glob, statistics, collections
t = collections.defaultdict(list); up = collections.defaultdict(list)
for f in glob.glob(sys.argv[1] + "/hbp-*.jsonl"):
    v = f.split("/")[-1].split("-")[1]
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: print("ERROR", r.get("matrix"), r.get("error", "")[:200]); continue
        if not r.get("check_passed", True): print("CHECK FAILED", f, r["matrix"])
        k = (r["matrix"][:40], r["precision"], v)
        t[k].append((r["plan_build_ms"], r["plan_build_ms"] / r["median_ms"], r["device_preprocess_ms"] / r["median_ms"], r["upload_ms"]))
for k in sorted(t):
    if k[2] != "new": continue
    for v in ("base", "new"):
        xs = t[(k[0], k[1], v)]
        print(f"{k[0]:40s} {k[1]} {v:4s} build {statistics.median(x[0] for x in xs):7.3f} ms, "
              f"{statistics.median(x[1] for x in xs):6.1f} SpMV-times (GPU build {statistics.median(x[2] for x in xs):5.1f}), upload {statistics.median(x[3] for x in xs):.3f} ms")
PY
cd $R && tar czf $OUT/run371-records.tar.gz *.jsonl *.txt

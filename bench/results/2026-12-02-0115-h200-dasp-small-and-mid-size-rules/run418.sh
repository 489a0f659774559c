#!/usr/bin/env bash
# Run 418: (1) stop 72's final build (67cb443) on the GPU: the GPU tests of HBP, the conformance
# suite and the automatic choice (16 shards), memcheck of the fixed rounds' tests, the hbp suite
# (hbp, cuSPARSE; fp64, fp16). (2) DASP's MAX_LEN for small matrices (issue 8): every candidate
# (16, 32, 64, 128, 256) as a variant on matrices of 0.4-1.05 M nonzeros where the byte budget of
# the rule is exceeded in fp16 / bf16, fp64, fp16 and bf16, with cuSPARSE. (3) DASP on the
# circuit-like 4 M matrix (fp64 0.94x cuSPARSE in run 282): a few variants.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run418.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_brief=1 \
    --gtest_filter='*Hbp*:*hbp*:*Conformance*:*AutoPlan*:*AutoChoice*' > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo "[$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
(cd $R && cat tests-*.txt | gzip > run418-gpu-tests.txt.gz && rm tests-*.txt)
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $b/tcsparse_gpu_tests --gtest_brief=1 \
  --gtest_filter='HbpGpu.AFixedShare*:HbpGpu.RepeatedApplies*' > $R/run418-memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)|FAILED  \]" $R/run418-memcheck.txt | head
timeout 100 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp,cusparse --precisions fp64,fp16 \
  --runs 20 --plan-builds 1 --output $R/run418-hbp.jsonl > $R/bench-hbp.txt 2>&1
echo "hbp suite rc $? [$SECONDS s]"; tail -1 $R/bench-hbp.txt
small=(
  gen:rmat:scale=15,edge_factor=16,seed=13
  gen:rmat:scale=15,edge_factor=32,seed=3
  gen:rmat:scale=16,edge_factor=8,seed=3
  gen:rmat:scale=16,edge_factor=16,seed=3
  gen:rmat:scale=14,edge_factor=48,seed=3
  gen:random:rows=100000,cols=100000,dist=power_law,min=1,max=5000,exponent=2,seed=14
  gen:random:rows=150000,cols=150000,dist=power_law,min=1,max=20000,exponent=2,seed=5
  gen:random:rows=120000,cols=120000,dist=power_law,min=1,max=100000,exponent=2.3,seed=61
  gen:random:rows=60000,cols=60000,dist=uniform,min=1,max=30,seed=4
  gen:random:rows=30000,cols=30000,dist=uniform,min=20,max=40,seed=4
  gen:random:rows=20000,cols=20000,dist=uniform,min=30,max=70,seed=4
  gen:stencil3d:nx=30,ny=30,nz=30,seed=12
  gen:pruned:rows=2048,cols=2048,sparsity=0.9,seed=16
  gen:pruned:rows=4096,cols=1024,sparsity=0.8,seed=17
  gen:replicate:file=.mx/suitesparse/cage11.mtx.gz,copies=2,seed=10
  .mx/suitesparse/cage11.mtx.gz
)
timeout 200 $b/tcsparse bench "${small[@]}" --methods dasp,cusparse --precisions fp64,fp16,bf16 \
  --runs 30 --plan-builds 1 --variant m16:max_medium_row_length=16 --variant m32:max_medium_row_length=32 \
  --variant m64:max_medium_row_length=64 --variant m128:max_medium_row_length=128 \
  --variant m256:max_medium_row_length=256 --output $R/run418-small-maxlen.jsonl > $R/bench-small.txt 2>&1
echo "small max_len rc $? [$SECONDS s]"; tail -1 $R/bench-small.txt
timeout 90 $b/tcsparse bench gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=1000000,exponent=2.3,seed=62 \
  --methods dasp,cusparse --precisions fp64,fp16 --runs 20 --plan-builds 1 \
  --variant bif2:blocks_in_flight=2 --variant bif4:blocks_in_flight=4 --variant lg8:long_groups_per_warp=8 \
  --variant lg128:long_groups_per_warp=128 --variant m128:max_medium_row_length=128 \
  --variant m64:max_medium_row_length=64 --output $R/run418-circuit4m.jsonl > $R/bench-circuit.txt 2>&1
echo "circuit 4m rc $? [$SECONDS s]"; tail -1 $R/bench-circuit.txt
python3 - $R <<'PY'
import json, sys, glob, collections, math
for name in ("hbp", "small-maxlen", "circuit4m"):
    t = collections.defaultdict(dict); det = {}
    for l in open(f"{sys.argv[1]}/run418-{name}.jsonl"):
        r = json.loads(l)
        if "median_ms" not in r: continue
        lab = r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else "")
        t[(r["precision"], r["matrix"][-60:], r["nnz"])][lab] = r["median_ms"] * 1e3
        if r["method"] == "dasp" and not r.get("variant"):
            det[(r["precision"], r["matrix"][-60:], r["nnz"])] = (r.get("details") or {}).get("max_medium_row_length")
    geo = collections.defaultdict(list)
    for k, v in sorted(t.items()):
        c = v.get("cusparse")
        if not c: continue
        print(name, k, "cusparse %.1f us" % c, "maxlen", det.get(k), " ".join(f"{m} {c / x:.3f}" for m, x in sorted(v.items()) if m != "cusparse"))
        for m, x in v.items():
            if m != "cusparse": geo[(k[0], m)].append(c / x)
    for (p, m), xs in sorted(geo.items()):
        print(name, p, m, "geomean", round(math.exp(sum(map(math.log, xs)) / len(xs)), 3), "min", round(min(xs), 3), len(xs))
PY
cd $R && gzip -f *.jsonl && echo "[$SECONDS s]"
cd $OUT && tar cf run418.tar r && rm -rf r

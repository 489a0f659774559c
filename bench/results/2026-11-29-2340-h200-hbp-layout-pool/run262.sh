#!/usr/bin/env bash
# Run 262: hbp's layout arrays from the pool (layout_memory=auto: pool for builds whose temporaries
# fit the 32 MiB the pool keeps) against cudaMalloc (layout_memory=allocate), in one binary:
# the hbp GPU tests, PlanBuild.*, DASP's build tests, memcheck of the new test; four passes over
# the smaller hbp-suite matrices alternating which of the two runs first; one pass over three
# larger ones (auto gives allocate there: no change expected); DASP plan builds of cage11 x 35.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run262.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 240 $b/tcsparse_gpu_tests --gtest_filter="*hbp*:*Hbp*:PlanBuild.*:DaspGpu.*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
echo "[$SECONDS s] memcheck"
timeout 120 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='PlanBuild.SmallHbp*:HbpGpuBuild.EdgeShapes*:HbpGpuBuild.BothBuilds*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
M="gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=10 .mx/suitesparse/rajat01.mtx.gz gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67 gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61 gen:rmat:scale=18,edge_factor=48,seed=63 gen:rmat:scale=19,edge_factor=48,seed=64"
for i in 1 2 3 4; do
  if [ $((i % 2)) = 1 ]; then args="--variant alloc:layout_memory=allocate"; else args="--param layout_memory=allocate --variant auto:layout_memory=auto"; fi
  timeout 90 $b/tcsparse bench $M --methods hbp --precisions fp64,fp16 --plan-builds 5 --runs 10 $args \
    --output $R/small-$i.jsonl > /dev/null 2>&1; echo "pass $i rc $? [$SECONDS s]"
done
L="gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=1000000,exponent=2.3,seed=62 gen:rmat:scale=20,edge_factor=48,seed=65 gen:banded:n=24000000,bandwidth=1,seed=68"
timeout 150 $b/tcsparse bench $L --methods hbp --precisions fp64,fp16 --plan-builds 3 --runs 10 \
  --output $R/large-1.jsonl > /dev/null 2>&1; echo "large rc $? [$SECONDS s]"
C="gen:replicate:file=.mx/suitesparse/cage11.mtx.gz,copies=35,seed=10"
for i in 1 2; do
  timeout 60 $b/tcsparse bench $C --methods dasp --precisions fp64,fp16,bf16 --plan-builds 5 --runs 20 \
    --output $R/cage-$i.jsonl > /dev/null 2>&1; echo "cage $i rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
R = sys.argv[1]
b = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/small-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if r.get("status", "ok") not in ("ok", "passed") and "device_preprocess_ms" not in r: continue
        mem = r.get("details", {}).get("layout_memory", "?")
        b[(r["matrix"][:48], r["precision"])][mem].append((r["device_preprocess_ms"], r["median_ms"], r["plan_build_ms"]))
print("matrix precision | allocate: median, lowest build ms (lowest SpMV-times) | pool: the same | pool/allocate medians")
for k, d in sorted(b.items()):
    a = d.get("allocate", []); p = d.get("pool", [])
    if not a or not p: print(k, {m: len(v) for m, v in d.items()}); continue
    ma = statistics.median(x[0] for x in a); mp = statistics.median(x[0] for x in p)
    la = min(a); lp = min(p)
    print(f"{k[0]:48s} {k[1]} | {ma:.3f} {la[0]:.3f} ({la[0]/la[1]:.1f}) | {mp:.3f} {lp[0]:.3f} ({lp[0]/lp[1]:.1f}) | {mp/ma:.3f}")
for f in [f"{R}/large-1.jsonl"] + sorted(glob.glob(f"{R}/cage-*.jsonl")):
    for l in open(f):
        r = json.loads(l); d = r.get("details", {})
        ph = {k: round(v, 3) for k, v in d.get("plan_phases_ms", {}).items()}
        print(f"{r['matrix'][:40]:40s} {r['precision']} {r['method']} build {r['plan_build_ms']:.3f} dev {r['device_preprocess_ms']:.3f} spmv {r['median_ms']:.4f} ({r['plan_build_ms']/r['median_ms']:.1f} / {r['device_preprocess_ms']/r['median_ms']:.1f}) mem {d.get('layout_memory','-')} alloc {d.get('csr_allocate_ms','-')} upload {d.get('csr_upload_ms','-')} waited {d.get('upload_waited_for_build_ms','-')}")
        print("   ", ph)
PY
cd $R && gzip *.jsonl tests-*.txt && tar czf $OUT/run262.tgz . && cp run262.log $OUT/
echo "[$SECONDS s]"

#!/usr/bin/env bash
# Run 442 (issue 8, DASP): row_order=internal_y (only y in the plan's order inside the apply:
# the kernel writes the rows with values into the plan's y, no warps for empty rows, one pass
# into the caller's order; x as given), asked for as a variant against the default and
# row_order=internal, fp64 and fp16:
#  A. the caller-order losses of runs 435-441 and held-out matrices, two passes;
#  B. the default and large suites, one pass;
#  C. the GPU tests of DASP (16 shards), memcheck of the internal_y tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run442.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/tcsparse_gpu_tests.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=.mx/suitesparse
M=(gen:rmat:scale=22,edge_factor=2,seed=207 gen:rmat:scale=23,edge_factor=2,seed=208
   gen:rmat:scale=24,edge_factor=2,seed=214 gen:rmat:scale=22,edge_factor=4,seed=206
   gen:rmat:scale=20,edge_factor=6,seed=215 gen:rmat:scale=21,edge_factor=4,seed=205
   gen:rmat:scale=22,edge_factor=16,seed=43 gen:rmat:scale=20,edge_factor=2,seed=501
   gen:replicate:file=$S/rajat01.mtx.gz,copies=200,seed=211 gen:replicate:file=$S/rajat01.mtx.gz,copies=463,seed=10
   gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=100000,exponent=2.3,seed=201
   gen:random:rows=3000000,cols=3000000,dist=power_law,min=1,max=50000,exponent=2.1,seed=204
   gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=1000000,exponent=2.3,seed=62
   gen:replicate:file=$S/MISKnowledgeMap.mtx.gz,copies=100,seed=412 gen:replicate:file=$S/ca-CondMat.mtx.gz,copies=60,seed=413
   gen:replicate:file=$S/pubmed.mtx.gz,copies=60,seed=414 gen:replicate:file=$S/nh2010.mtx.gz,copies=40,seed=307
   gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=41 gen:short:rows=4000000,cols=4000000,seed=47
   gen:random:rows=3000000,cols=2000000,dist=power_law,min=0,max=1000,exponent=2.2,seed=502
   gen:pruned:rows=1024,cols=4096,sparsity=0.7,seed=503)
SECONDS=0
for pass in 1 2; do
  timeout 200 $b/tcsparse bench "${M[@]}" --methods dasp,cusparse --precisions fp64,fp16 --runs 30 \
    --variant iy:row_order=internal_y --variant int:row_order=internal --output $R/losses-$pass.jsonl > $R/losses-$pass.txt 2>&1
  echo "losses $pass rc $? [$SECONDS s]"; tail -1 $R/losses-$pass.txt
done
for suite in default large; do
  timeout 200 $b/tcsparse bench --suite $suite --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16 --runs 20 \
    --variant iy:row_order=internal_y --output $R/suite-$suite.jsonl > $R/suite-$suite.txt 2>&1
  echo "suite $suite rc $? [$SECONDS s]"; tail -1 $R/suite-$suite.txt
done
F='*Dasp*:*dasp*:PlanBuild*:*AutoPlan*:*AutoChoice*:HostUploadTest.*:DeviceTest.*:DeviceCsrViewValidation.*'
for i in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$i timeout 280 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$i.txt 2>&1 &
done
wait
echo "tests [$SECONDS s]"; grep -h "PASSED\|FAILED" $R/tests-*.txt | sort | uniq -c | head -20
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='*InternalY*' > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $R/memcheck.txt
python3 - $R <<'PY'
import json, sys, glob, statistics, collections, math
def gm(v): return math.exp(sum(map(math.log, v)) / len(v))
for group in ("losses", "suite-default", "suite-large"):
    t = collections.defaultdict(lambda: collections.defaultdict(list)); info = {}
    for f in sorted(glob.glob(sys.argv[1] + f"/{group}*.jsonl")):
        for l in open(f):
            r = json.loads(l)
            if "median_ms" not in r: continue
            k = (r["precision"], r["matrix"][-44:])
            t[k][r.get("variant") or r["method"]].append(r["median_ms"] * 1e3)
            if r["method"] == "dasp" and not r.get("variant"):
                d = r["details"]; info[k] = (r["rows"], r["nnz"], d.get("rows", {}).get("empty"), d.get("row_order"))
    sp = collections.defaultdict(list)
    print("==", group)
    for k in sorted(t):
        by = t[k]; c = statistics.median(by["cusparse"])
        line = {m: c / statistics.median(v) for m, v in by.items() if m != "cusparse"}
        for m, v in line.items(): sp[(k[0], m)].append(v)
        print(k[0], k[1], info.get(k), " ".join(f"{m} {v:.3f}" for m, v in sorted(line.items())))
    for (p, m), v in sorted(sp.items()): print("  geomean", p, m, f"{gm(v):.3f} min {min(v):.3f} n {len(v)}")
PY
cd $R && gzip -f *.jsonl && tar czf $OUT/run442.tgz . && cd - > /dev/null

#!/usr/bin/env bash
# Run 443 (issue 8, DASP): row_order=auto with the internal_y rule (kDaspInternalYMinRows):
#  A. run 442's matrices in fp64, auto against row_order=caller as a variant, one pass; the
#     default suite in fp64 (no matrix there meets the rule: the same times);
#  B. the GPU tests of DASP (16 shards); memcheck of the internal_y capture test.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run443.log) 2>&1
save() { tar czf $OUT/run443.tgz -C $R . ; }
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/tcsparse_gpu_tests.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=.mx/suitesparse
M=(gen:rmat:scale=22,edge_factor=2,seed=207 gen:rmat:scale=23,edge_factor=2,seed=208
   gen:rmat:scale=24,edge_factor=2,seed=214 gen:rmat:scale=22,edge_factor=4,seed=206
   gen:rmat:scale=20,edge_factor=6,seed=215 gen:rmat:scale=21,edge_factor=4,seed=205
   gen:rmat:scale=22,edge_factor=16,seed=43
   gen:replicate:file=$S/rajat01.mtx.gz,copies=200,seed=211 gen:replicate:file=$S/rajat01.mtx.gz,copies=463,seed=10
   gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=100000,exponent=2.3,seed=201
   gen:random:rows=3000000,cols=3000000,dist=power_law,min=1,max=50000,exponent=2.1,seed=204
   gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=1000000,exponent=2.3,seed=62
   gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=41 gen:short:rows=4000000,cols=4000000,seed=47
   gen:random:rows=3000000,cols=2000000,dist=power_law,min=0,max=1000,exponent=2.2,seed=502
   gen:rmat:scale=23,edge_factor=3,seed=601 gen:random:rows=6000000,cols=6000000,dist=power_law,min=1,max=200000,exponent=2.4,seed=602
   gen:random:rows=2600000,cols=2600000,dist=power_law,min=1,max=20000,exponent=2,seed=603)
SECONDS=0
timeout 150 $b/tcsparse bench "${M[@]}" --methods dasp,cusparse --precisions fp64 --runs 30 \
  --variant caller:row_order=caller --output $R/run443-rule.jsonl > $R/rule.txt 2>&1
echo "rule rc $? [$SECONDS s]"; tail -1 $R/rule.txt
timeout 60 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64 --runs 20 \
  --output $R/run443-default.jsonl > $R/default.txt 2>&1
echo "default rc $? [$SECONDS s]"; tail -1 $R/default.txt
python3 - $R <<'PY'
import json, sys, statistics, collections, math
def gm(v): return math.exp(sum(map(math.log, v)) / len(v))
for name in ("rule", "default"):
    t = collections.defaultdict(dict); order = {}
    for l in open(f"{sys.argv[1]}/run443-{name}.jsonl"):
        r = json.loads(l)
        if "median_ms" not in r: continue
        k = r["matrix"][-44:]
        t[k][r.get("variant") or r["method"]] = r["median_ms"] * 1e3
        if r["method"] == "dasp" and not r.get("variant"): order[k] = (r["rows"], r["details"].get("row_order"))
    sp = collections.defaultdict(list)
    for k, by in t.items():
        c = by["cusparse"]
        line = {m: c / v for m, v in by.items() if m != "cusparse"}
        for m, v in line.items(): sp[m].append(v)
        print(name, k, order.get(k), " ".join(f"{m} {v:.3f}" for m, v in sorted(line.items())))
    for m, v in sp.items(): print("  geomean", name, m, f"{gm(v):.3f} min {min(v):.3f} n {len(v)}")
PY
save
F='*Dasp*:*dasp*:PlanBuild*:*AutoPlan*:*AutoChoice*:HostUploadTest.*:DeviceTest.*:DeviceCsrViewValidation.*'
for i in $(seq 0 15); do
  ( GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$i timeout 170 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$i.txt 2>&1; echo "shard $i rc $?" >> $R/shards.txt ) &
done
wait
echo "tests [$SECONDS s]"; sort -V $R/shards.txt | tr '\n' ' '; echo
grep -h "PASSED\|FAILED" $R/tests-*.txt | sort | uniq -c | head -20
grep -h "^\[ *OK \].*Internal\|^\[  FAILED" $R/tests-*.txt | head -20
save
timeout 100 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DaspGpu.InternalYRowOrderOnSparseGraphsRectangularAndEmptyMatricesIsCapturedInAGraph' > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $R/memcheck.txt
save

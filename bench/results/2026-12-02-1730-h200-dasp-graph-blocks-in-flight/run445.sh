#!/usr/bin/env bash
# Run 445 (issue 8, DASP), this commit's binaries:
#  A. the GPU tests of DASP in 16 shards (16-bit internal_y with beta != 0 now gathers y first;
#     the graphs' blocks-in-flight rule); memcheck of the internal_y catalogue and capture tests;
#  B. the graphs' rule (auto) against blocks_in_flight=2 on run 444's matrices and held-out
#     graphs, fp64, two passes; the default suite in fp64 / fp16 / bf16.
set -u
OUT=${OUT:-/tmp/out}; R=$OUT/r; mkdir -p $R
log=$R/run445.log
say() { echo "$*" | tee -a $log; }
save() { tar czf $OUT/run445.tgz -C $R . ; }
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
SECONDS=0
F='*Dasp*:*dasp*:PlanBuild*:*AutoPlan*:*AutoChoice*:HostUploadTest.*:DeviceTest.*:DeviceCsrViewValidation.*'
pids=()
for i in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$i timeout -k 5 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$i.txt 2>&1 &
  pids+=($!)
done
for i in $(seq 0 15); do wait ${pids[$i]}; say "shard $i rc $?"; done
say "tests [$SECONDS s]"
grep -h "tests ran\|PASSED\|FAILED" $R/tests-*.txt | sort | uniq -c | tee -a $log | head -30
grep -h "^\[       OK \] .*\(InternalY\|Fp64GraphsInTheCallers\)" $R/tests-*.txt | wc -l | xargs echo "internal_y / graph tests passed:" | tee -a $log
grep -h -B30 "^\[  FAILED  \]" $R/tests-*.txt | head -150 >> $R/failures.txt
cat $R/tests-*.txt | grep -v "^\[ *\(RUN\|OK\) *\]" | gzip > $R/run445-gpu-tests.txt.gz; rm -f $R/tests-*.txt
save
timeout -k 5 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='*InternalYRowOrderGivesTheCallerOrderResultBitForBit/*:DaspGpu.InternalYRowOrderOnSparseGraphsRectangularAndEmptyMatricesIsCapturedInAGraph' --gtest_brief=1 > $R/memcheck.txt 2>&1
say "memcheck rc $? [$SECONDS s]"; tail -n 3 $R/memcheck.txt | tee -a $log
save
S=.mx/suitesparse
M=(gen:rmat:scale=20,edge_factor=6,seed=215 gen:rmat:scale=20,edge_factor=8,seed=711
   gen:rmat:scale=20,edge_factor=10,seed=712 gen:rmat:scale=21,edge_factor=3,seed=713
   gen:rmat:scale=21,edge_factor=4,seed=205 gen:rmat:scale=21,edge_factor=5,seed=714
   gen:rmat:scale=19,edge_factor=16,seed=715 gen:rmat:scale=22,edge_factor=3,seed=716
   gen:rmat:scale=18,edge_factor=48,seed=63
   gen:replicate:file=$S/rajat01.mtx.gz,copies=150,seed=720 gen:replicate:file=$S/rajat01.mtx.gz,copies=200,seed=211
   gen:random:rows=1500000,cols=1500000,dist=power_law,min=1,max=50000,exponent=2.1,seed=717
   gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=100000,exponent=2.3,seed=719
   gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67
   gen:rmat:scale=20,edge_factor=5,seed=721 gen:rmat:scale=21,edge_factor=6,seed=722
   gen:rmat:scale=19,edge_factor=24,seed=723 gen:rmat:scale=19,edge_factor=10,seed=724
   gen:rmat:scale=20,edge_factor=12,seed=725 gen:rmat:scale=21,edge_factor=7,seed=726
   gen:random:rows=1200000,cols=1200000,dist=power_law,min=0,max=60000,exponent=2.0,seed=727
   gen:random:rows=2500000,cols=1500000,dist=power_law,min=0,max=2000,exponent=2.2,seed=728)
for pass in 1 2; do
  timeout -k 5 200 $b/tcsparse bench "${M[@]}" --methods dasp,cusparse --precisions fp64 --runs 20 \
    --variant bif2:blocks_in_flight=2 --output $R/run445-rule-$pass.jsonl > $R/rule-$pass.txt 2>&1
  say "rule pass $pass rc $? [$SECONDS s]"; tail -n 1 $R/rule-$pass.txt | tee -a $log
  save
done
timeout -k 5 150 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16,bf16 \
  --runs 20 --output $R/run445-default.jsonl > $R/default.txt 2>&1
say "default rc $? [$SECONDS s]"; tail -n 1 $R/default.txt | tee -a $log
python3 - $R <<'PY' | tee -a $log
import json, sys, collections, statistics, math
def gm(v): return math.exp(sum(map(math.log, v)) / len(v))
t = collections.defaultdict(lambda: collections.defaultdict(list)); info = {}
for name in ("rule-1", "rule-2", "default"):
    try: lines = open(f"{sys.argv[1]}/run445-{name}.jsonl")
    except OSError: continue
    for l in lines:
        r = json.loads(l)
        if "median_ms" not in r: continue
        k = (name[:4], r["matrix"][-42:], r["precision"])
        t[k][r.get("variant") or r["method"]].append(r["median_ms"])
        if r["method"] == "dasp" and not r.get("variant"):
            d = r["details"]; vb = 8 if r["precision"] == "fp64" else 2
            info[k] = (r["rows"], round(d["stored_values"] * (vb + 4) / 2**20),
                       round(d["rows"]["empty"] / max(r["rows"], 1), 2), d.get("blocks_in_flight"), d.get("row_order"))
sp = collections.defaultdict(list)
for k, v in sorted(t.items()):
    c = statistics.median(v["cusparse"])
    line = {m: c / statistics.median(x) for m, x in v.items() if m != "cusparse"}
    for m, s in line.items(): sp[(k[0], k[2], m)].append(s)
    print(k, info.get(k), " ".join(f"{m} {s:.3f}" for m, s in sorted(line.items())))
for key, v in sorted(sp.items()): print("geomean", key, f"{gm(v):.3f} min {min(v):.3f} n {len(v)}")
PY
save
say "done [$SECONDS s]"

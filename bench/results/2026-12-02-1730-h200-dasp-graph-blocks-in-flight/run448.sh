#!/usr/bin/env bash
# Run 448 (issue 8, DASP), this commit's binaries:
#  A. the GPU tests of DASP in 16 shards;
#  B. the 16-bit minor-long-rows rule (auto against blocks_in_flight=4) on run 447's matrices
#     and held-out ones, fp16 / bf16; the fp64 graphs' rule at 144 MiB (auto against
#     blocks_in_flight=2) on run 445's graphs; run 443's 18 matrices in fp64 / fp16 (where DASP
#     stands); the default suite in fp64 / fp16 / bf16.
set -u
OUT=${OUT:-/tmp/out}; R=$OUT/r; mkdir -p $R
log=$R/run448.log
say() { echo "$*" | tee -a $log; }
save() { tar czf $OUT/run448.tgz -C $R . ; }
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
grep -h -B30 "^\[  FAILED  \]" $R/tests-*.txt | head -150 >> $R/failures.txt
cat $R/tests-*.txt | grep -v "^\[ *\(RUN\|OK\) *\]" | gzip > $R/run448-gpu-tests.txt.gz; rm -f $R/tests-*.txt
save
S=.mx/suitesparse
R16=(gen:replicate:file=$S/rajat01.mtx.gz,copies=25,seed=740 gen:replicate:file=$S/rajat01.mtx.gz,copies=50,seed=741
   gen:replicate:file=$S/rajat01.mtx.gz,copies=75,seed=742 gen:replicate:file=$S/rajat01.mtx.gz,copies=100,seed=301
   gen:replicate:file=$S/rajat01.mtx.gz,copies=150,seed=720 gen:replicate:file=$S/rajat01.mtx.gz,copies=200,seed=211
   gen:replicate:file=$S/rajat01.mtx.gz,copies=60,seed=750 gen:replicate:file=$S/rajat01.mtx.gz,copies=125,seed=751
   gen:random:rows=1000000,cols=1000000,dist=power_law,min=3,max=2000,exponent=2.5,seed=317
   gen:random:rows=1500000,cols=1500000,dist=power_law,min=2,max=1500,exponent=2.4,seed=752
   gen:random:rows=800000,cols=800000,dist=power_law,min=4,max=5000,exponent=2.6,seed=753
   gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=100000,exponent=2.3,seed=719
   gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61
   gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67
   gen:rmat:scale=20,edge_factor=6,seed=215 gen:rmat:scale=22,edge_factor=2,seed=207)
timeout -k 5 200 $b/tcsparse bench "${R16[@]}" --methods dasp,cusparse --precisions fp16,bf16 --runs 20 \
  --variant bif4:blocks_in_flight=4 --output $R/run448-rule16.jsonl > $R/rule16.txt 2>&1
say "rule16 rc $? [$SECONDS s]"; tail -n 1 $R/rule16.txt | tee -a $log
save
G=(gen:rmat:scale=20,edge_factor=6,seed=215 gen:rmat:scale=20,edge_factor=8,seed=711
   gen:rmat:scale=21,edge_factor=3,seed=713 gen:rmat:scale=21,edge_factor=4,seed=205
   gen:rmat:scale=21,edge_factor=5,seed=714 gen:rmat:scale=21,edge_factor=6,seed=722
   gen:rmat:scale=18,edge_factor=48,seed=63 gen:rmat:scale=20,edge_factor=5,seed=721
   gen:random:rows=1200000,cols=1200000,dist=power_law,min=0,max=60000,exponent=2.0,seed=727
   gen:replicate:file=$S/rajat01.mtx.gz,copies=150,seed=720)
timeout -k 5 150 $b/tcsparse bench "${G[@]}" --methods dasp,cusparse --precisions fp64 --runs 20 \
  --variant bif2:blocks_in_flight=2 --output $R/run448-graphs.jsonl > $R/graphs.txt 2>&1
say "graphs rc $? [$SECONDS s]"; tail -n 1 $R/graphs.txt | tee -a $log
save
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
timeout -k 5 200 $b/tcsparse bench "${M[@]}" --methods dasp,cusparse --precisions fp64,fp16 --runs 20 \
  --output $R/run448-losses.jsonl > $R/losses.txt 2>&1
say "losses rc $? [$SECONDS s]"; tail -n 1 $R/losses.txt | tee -a $log
save
timeout -k 5 150 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16,bf16 \
  --runs 20 --output $R/run448-default.jsonl > $R/default.txt 2>&1
say "default rc $? [$SECONDS s]"; tail -n 1 $R/default.txt | tee -a $log
python3 - $R <<'PY' | tee -a $log
import json, sys, collections, statistics, math
def gm(v): return math.exp(sum(map(math.log, v)) / len(v))
t = collections.defaultdict(lambda: collections.defaultdict(list)); info = {}
for name in ("rule16", "graphs", "losses", "default"):
    try: lines = open(f"{sys.argv[1]}/run448-{name}.jsonl")
    except OSError: continue
    for l in lines:
        r = json.loads(l)
        if "median_ms" not in r: continue
        k = (name, r["matrix"][-40:], r["precision"])
        t[k][r.get("variant") or r["method"]].append(r["median_ms"])
        if r["method"] == "dasp" and not r.get("variant"):
            d = r["details"]; nz = max(r["nnz"], 1)
            info[k] = (r["nnz"], round(d["nnz"]["long"] / nz, 3), round(d["rows"]["empty"] / max(r["rows"], 1), 2),
                       d.get("blocks_in_flight"), d.get("row_order"))
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

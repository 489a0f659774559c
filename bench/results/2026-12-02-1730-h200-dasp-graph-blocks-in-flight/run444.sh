#!/usr/bin/env bash
# Run 444 (issue 8, DASP):
#  A. the GPU tests of DASP in 16 shards (run 443's shard 3 failed, its output lost), each
#     shard's log kept; memcheck of the internal_y capture test;
#  B. blocks_in_flight=4 and max_medium_row_length=128 as variants on heavy-tailed fp64/fp16
#     matrices of 50-250 MiB stored (R-MAT 19-22, kron-like, rajat01 replicas, power-law rows,
#     mip1-like), two passes.
set -u
OUT=${OUT:-/tmp/out}; R=$OUT/r; mkdir -p $R
log=$R/run444.log
say() { echo "$*" | tee -a $log; }
save() { tar czf $OUT/run444.tgz -C $R . ; }
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
save
timeout -k 5 120 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DaspGpu.InternalYRowOrderOnSparseGraphsRectangularAndEmptyMatricesIsCapturedInAGraph' > $R/memcheck.txt 2>&1
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
   gen:random:rows=1000000,cols=1000000,dist=power_law,min=1,max=300000,exponent=2.3,seed=718
   gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=100000,exponent=2.3,seed=719
   gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67)
for pass in 1 2; do
  timeout -k 5 200 $b/tcsparse bench "${M[@]}" --methods dasp,cusparse --precisions fp64,fp16 --runs 20 \
    --variant bif4:blocks_in_flight=4 --variant m128:max_medium_row_length=128 \
    --variant bm:blocks_in_flight=4,max_medium_row_length=128 \
    --output $R/run444-bif-$pass.jsonl > $R/bif-$pass.txt 2>&1
  say "bif pass $pass rc $? [$SECONDS s]"; tail -n 1 $R/bif-$pass.txt | tee -a $log
  save
done
python3 - $R <<'PY' | tee -a $log
import json, sys, collections, statistics
t = collections.defaultdict(lambda: collections.defaultdict(list)); info = {}
for p in (1, 2):
    try: lines = open(f"{sys.argv[1]}/run444-bif-{p}.jsonl")
    except OSError: continue
    for l in lines:
        r = json.loads(l)
        if "median_ms" not in r: continue
        k = (r["matrix"][-42:], r["precision"])
        t[k][r.get("variant") or r["method"]].append(r["median_ms"])
        if r["method"] == "dasp" and not r.get("variant"):
            d = r["details"]; vb = 8 if r["precision"] == "fp64" else 2
            info[k] = (r["rows"], round(d["nnz"]["long"] / max(r["nnz"], 1), 3),
                       round(d["stored_values"] * (vb + 4) / 2**20), d.get("blocks_in_flight"),
                       d.get("medium_rows_per_warp"), round(d["rows"]["empty"] / r["rows"], 2), d.get("row_order"))
for k, v in sorted(t.items()):
    c = statistics.median(v["cusparse"])
    print(k, info.get(k), " ".join(f"{m} {c / statistics.median(x):.3f}" for m, x in sorted(v.items()) if m != "cusparse"))
PY
save
say "done [$SECONDS s]"

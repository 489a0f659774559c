#!/usr/bin/env bash
# Run 453 (issue 8, DASP), this commit's binaries (4 blocks in flight for every layout with long
# rows up to 64 MiB, whatever the medium row-blocks a warp): the GPU tests of DASP in 16 shards;
# auto against blocks_in_flight=2 on run 452's matrices and held-out ones; the default suite.
set -u
OUT=${OUT:-/tmp/out}; R=$OUT/r; mkdir -p $R
log=$R/run453.log
say() { echo "$*" | tee -a $log; }
save() { tar czf $OUT/run453.tgz -C $R . ; }
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
cat $R/tests-*.txt | grep -v "^\[ *\(RUN\|OK\) *\]" | gzip > $R/run453-gpu-tests.txt.gz; rm -f $R/tests-*.txt
save
S=.mx/suitesparse
M=(gen:replicate:file=$S/case9.mtx.gz,copies=20,seed=820 gen:replicate:file=$S/case9.mtx.gz,copies=60,seed=813
   gen:replicate:file=$S/case9.mtx.gz,copies=10,seed=830 gen:replicate:file=$S/case9.mtx.gz,copies=30,seed=831
   gen:replicate:file=$S/case9.mtx.gz,copies=40,seed=832
   gen:rmat:scale=20,edge_factor=3,seed=824 gen:rmat:scale=19,edge_factor=3,seed=833 gen:rmat:scale=18,edge_factor=8,seed=834
   gen:random:rows=200000,cols=200000,dist=normal,min=4,max=300,seed=835
   gen:random:rows=100000,cols=100000,dist=uniform,min=1,max=400,seed=836
   gen:random:rows=500000,cols=500000,dist=power_law,min=8,max=3000,exponent=2.8,seed=837
   gen:random:rows=300000,cols=300000,dist=normal,min=10,max=600,seed=838)
timeout -k 5 200 $b/tcsparse bench "${M[@]}" --methods dasp,cusparse --precisions fp64,fp16 --runs 20 \
  --variant bif2:blocks_in_flight=2 --output $R/run453-multi.jsonl > $R/multi.txt 2>&1
say "multi rc $? [$SECONDS s]"; tail -n 1 $R/multi.txt | tee -a $log
save
timeout -k 5 150 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16,bf16 \
  --runs 20 --output $R/run453-default.jsonl > $R/default.txt 2>&1
say "default rc $? [$SECONDS s]"; tail -n 1 $R/default.txt | tee -a $log
python3 - $R <<'PY' | tee -a $log
import json, sys, collections, math
def gm(v): return math.exp(sum(map(math.log, v)) / len(v))
t = collections.defaultdict(dict); info = {}
for name in ("multi", "default"):
    for l in open(f"{sys.argv[1]}/run453-{name}.jsonl"):
        r = json.loads(l)
        if "median_ms" not in r: continue
        k = (name, r["matrix"][-40:], r["precision"])
        t[k][r.get("variant") or r["method"]] = r["median_ms"]
        if r["method"] == "dasp" and not r.get("variant"):
            d = r["details"]; sh = d["block_shape"][0]
            info[k] = (d["rows"]["long"] > 0, round(d["nnz"]["long"] / max(r["nnz"], 1), 3), d["medium_rows_per_warp"] // sh,
                       d["blocks_in_flight"], round(d["stored_values"] * (12 if r["precision"] == "fp64" else 6) / 2**20))
sp = collections.defaultdict(list)
for k, v in sorted(t.items()):
    c = v["cusparse"]
    line = {m: c / x for m, x in v.items() if m != "cusparse"}
    for m, s in line.items(): sp[(k[0], k[2], m)].append(s)
    print(k, "long/share/rowblocks-a-warp/bif/MiB", info.get(k), " ".join(f"{m} {s:.3f}" for m, s in sorted(line.items())))
for key, v in sorted(sp.items()): print("geomean", key, f"{gm(v):.3f} min {min(v):.3f} n {len(v)}")
PY
save
say "done [$SECONDS s]"

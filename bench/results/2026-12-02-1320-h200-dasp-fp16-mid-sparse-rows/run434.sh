#!/usr/bin/env bash
# Run 434 (issue 8, DASP), the final binary of this change:
#  A. fp16 / bf16 matrices of 1-4 M nonzeros whose rows hold at most 6.5 values on average take
#     MAX_LEN 64 (kDaspMidMatrixSparseRowsMaxMean): auto against the paper's 256 as a variant
#     (max_medium_row_length=256, interleaved on each matrix), two passes, on run 427's mid-size
#     matrices and eight sparse graphs no rule was fitted on;
#  B. plan builds of the default suite's mid-size matrices, five a case, from host memory and
#     from CSR already on the GPU (--from-device), with details.build_thread_ms;
#  C. the GPU tests of DASP, the plan build and the automatic choice (16 shards), memcheck of the
#     device build's equality tests.
# Binaries from .device-bin (built for sm_90), rajat01 from .mx.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run434.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
mats=(
  gen:random:rows=150000,cols=150000,dist=power_law,min=1,max=20000,exponent=2,seed=5
  gen:random:rows=300000,cols=300000,dist=power_law,min=1,max=20000,exponent=2,seed=31
  gen:rmat:scale=16,edge_factor=24,seed=32 gen:rmat:scale=17,edge_factor=16,seed=33 gen:rmat:scale=18,edge_factor=8,seed=34
  gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61
  gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=67
  gen:random:rows=30000,cols=30000,dist=power_law,min=1,max=10000,exponent=1.6,seed=44
  gen:rmat:scale=19,edge_factor=6,seed=54 gen:random:rows=500000,cols=500000,dist=power_law,min=1,max=50000,exponent=2.2,seed=55
  gen:rmat:scale=20,edge_factor=3,seed=71 gen:rmat:scale=19,edge_factor=4,seed=73
  gen:random:rows=1000000,cols=1000000,dist=power_law,min=1,max=100000,exponent=2.5,seed=74
)
held_out=(  # sparse graphs no rule was fitted on
  gen:rmat:scale=20,edge_factor=2,seed=101 gen:rmat:scale=19,edge_factor=5,seed=102 gen:rmat:scale=21,edge_factor=1,seed=103
  gen:random:rows=800000,cols=800000,dist=power_law,min=1,max=200000,exponent=2.4,seed=104
  gen:random:rows=400000,cols=400000,dist=power_law,min=2,max=20000,exponent=2.6,seed=105
  gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=80,seed=106
  gen:random:rows=500000,cols=500000,dist=uniform,min=1,max=10,seed=107
  gen:rmat:scale=18,edge_factor=7,seed=108
)
for pass in 1 2; do
  timeout 150 $b/tcsparse bench "${mats[@]}" "${held_out[@]}" --methods dasp,cusparse --precisions fp16,bf16 \
    --runs 30 --variant p256:max_medium_row_length=256 --output $R/run434-rule-$pass.jsonl > $R/bench-rule-$pass.txt 2>&1
  echo "rule pass $pass rc $? [$SECONDS s]"; tail -1 $R/bench-rule-$pass.txt
done
for from in host device; do
  flag=(); [ $from = device ] && flag=(--from-device)
  timeout 120 $b/tcsparse bench gen:pruned:rows=4096,cols=4096,sparsity=0.9,seed=53 \
    gen:llm:rows=4096,cols=11008,sparsity=0.9,profile=uniform,seed=96 gen:rmat:scale=19,edge_factor=6,seed=54 \
    gen:random:rows=500000,cols=500000,dist=uniform,min=1,max=10,seed=107 \
    --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 5 "${flag[@]}" \
    --output $R/run434-build-$from.jsonl > $R/bench-build-$from.txt 2>&1
  echo "build $from rc $? [$SECONDS s]"; tail -1 $R/bench-build-$from.txt
done
python3 - $R <<'PY'
import json, sys, collections, math, glob, statistics
R = sys.argv[1]
def gm(xs): return math.exp(sum(map(math.log, xs)) / len(xs))
t = collections.defaultdict(lambda: collections.defaultdict(list)); info = {}
for f in sorted(glob.glob(f"{R}/run434-rule-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        k = (r["precision"], r["matrix"][-60:], r["nnz"])
        m = r["method"] + ("/" + r["variant"] if r.get("variant") else "")
        t[k][m].append(r["median_ms"] * 1e3)
        if m == "dasp": info[k] = (r["details"].get("max_medium_row_length"), round(r["nnz"] / r["rows"], 2))
geo = collections.defaultdict(list)
for k in sorted(t):
    med = {m: statistics.median(v) for m, v in t[k].items()}
    auto, p256, cus = med["dasp"], med["dasp/p256"], med["cusparse"]
    ml, mean = info[k]
    fired = ml == 64 and mean <= 6.5 and 1 << 20 <= k[2] < 1 << 22
    old = p256 if fired else auto
    print(k[0], k[1], k[2], "mean", mean, "max_len", ml, "fired" if fired else "", f"auto {cus/auto:.3f} p256 {cus/p256:.3f} old {cus/old:.3f}x cuSPARSE")
    geo[(k[0], "new")].append(cus / auto); geo[(k[0], "old")].append(cus / old)
    if fired: geo[(k[0], "fired new/old")].append(old / auto)
for (p, lab), xs in sorted(geo.items()):
    print(p, lab, "geomean", round(gm(xs), 3), "min", round(min(xs), 3), "max", round(max(xs), 3), len(xs))
for from_ in ("host", "device"):
    for l in open(f"{R}/run434-build-{from_}.jsonl"):
        r = json.loads(l)
        if "median_ms" not in r: continue
        d = r.get("details", {})
        print(from_, r["precision"], r["method"], r["matrix"][-50:], r["nnz"], f"spmv {r['median_ms']*1e3:.1f} us build {r['plan_build_ms']:.3f} ms",
              f"= {r['plan_build_ms'] / r['median_ms']:.0f} SpMV-times", "upload", d.get("csr_upload_ms"), "thread", d.get("build_thread_ms"))
PY
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_brief=1 \
    --gtest_filter='*Dasp*:*dasp*:PlanBuild*:*AutoPlan*:*AutoChoice*:HostUploadTest.*:DeviceTest.*:DeviceCsrViewValidation.*' > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo "[$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
(cd $R && cat tests-*.txt | gzip > run434-gpu-tests.txt.gz && rm tests-*.txt)
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $b/tcsparse_gpu_tests --gtest_brief=1 \
  --gtest_filter='*DeviceBuildEqualsHostBuild*' > $R/run434-memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)|FAILED  \]" $R/run434-memcheck.txt | head
cd $R && gzip -f *.jsonl && rm -f bench-*.txt && echo "[$SECONDS s]"

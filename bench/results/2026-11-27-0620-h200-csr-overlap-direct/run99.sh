#!/usr/bin/env bash
# Run 99: csr_overlap with copy=auto taking direct warps on matrices of >= 2^20 nonzeros.
# GPU tests (csr_overlap, full overlap, conformance, apply promises), the default suite in every
# precision against cuSPARSE, the from-device plan builds, and a source-level Nsight Compute
# profile of the direct kernel (stencil3d_100 fp64).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run99.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/t; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 200 $b/tcsparse bench --suite default --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
  --variant cp_async:copy=cp_async --plan-builds 1 --runs 20 --output $R/default.jsonl > $R/default.txt 2>&1
echo "bench rc $? [$SECONDS s]"
timeout 200 $b/tcsparse bench --suite default --methods csr_overlap --precisions fp64,fp32 --from-device \
  --plan-builds 5 --runs 10 --output $R/from-device.jsonl > $R/from-device.txt 2>&1
echo "from-device rc $? [$SECONDS s]"
python3 - $R/default.jsonl $R/from-device.jsonl <<'PY'
import json, sys, math, collections
t = collections.defaultdict(dict); share = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if not r.get("check_passed"): print("CHECK FAILED", r["matrix"], r["method"], r.get("variant")); continue
    label = r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else "")
    t[(r["matrix"][:20], r["precision"], r["nnz"])][label] = r["median_ms"]
    if label == "csr_overlap": share[(r["matrix"][:20], r["precision"])] = (r.get("bandwidth_share"), r["details"].get("batch_unit"), r["details"].get("copy"))
agg = collections.defaultdict(list)
print("matrix precision | cusparse ms | auto, cp_async over cusparse | bandwidth share, unit, copy")
for k, v in sorted(t.items(), key=lambda kv: (kv[0][1], -kv[0][2])):
    if "cusparse" not in v: continue
    sp = [v["cusparse"] / v[l] if l in v else float("nan") for l in ["csr_overlap", "csr_overlap[cp_async]"]]
    print(*k[:2], "| %.4f |" % v["cusparse"], " ".join("%.3f" % x for x in sp), share.get(k[:2]))
    for l, x in zip(["auto", "cp_async"], sp):
        if x == x: agg[(k[1], "large" if k[2] >= 10_000_000 else "small", l)].append(x)
for key, xs in sorted(agg.items()):
    print(*key, "geomean %.3f min %.3f" % (math.exp(sum(map(math.log, xs)) / len(xs)), min(xs)))
spmv = {(r["matrix"], r["precision"]): r["median_ms"] for r in map(json.loads, open(sys.argv[1])) if r["method"] == "csr_overlap" and not r.get("variant")}
for line in open(sys.argv[2]):
    r = json.loads(line)
    if r["nnz"] < 1_000_000: continue
    print("from device", r["matrix"][:20], r["precision"], "build %.3f ms, %.2f SpMV-times (own run %.2f), %s" % (r["plan_build_ms"], r["plan_build_ms"] / spmv.get((r["matrix"], r["precision"]), float("nan")), r["plan_build_ms"] / r["median_ms"], r["details"].get("device_csr")), r.get("check_passed"))
PY
gzip -f $R/*.jsonl
which ncu || export PATH=$PATH:/usr/local/cuda/bin
SECONDS=0
timeout 120 ncu --set full --import-source no --clock-control none -k regex:warp_direct --launch-skip 5 --launch-count 1 -o /tmp/p \
  $b/tcsparse bench gen:stencil3d:nx=100,ny=100,nz=100,seed=2 --methods csr_overlap --precisions fp64 --plan-builds 1 --runs 2 --output /tmp/x.jsonl > $R/ncu.txt 2>&1
echo "ncu rc $? [$SECONDS s]"
ncu -i /tmp/p.ncu-rep --page source --csv --print-source sass > $R/ncu-sass-stencil3d-fp64.csv 2>&1
ncu -i /tmp/p.ncu-rep --page details > $R/ncu-details-stencil3d-fp64.txt 2>&1
gzip -f $R/ncu-sass-stencil3d-fp64.csv
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/t --gtest_filter='*CsrOverlap*:*csr_overlap*:*FullOverlap*:*Conformance*:*ApplyPromises*:*DeviceCsr*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt

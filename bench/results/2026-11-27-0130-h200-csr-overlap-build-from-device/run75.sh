#!/usr/bin/env bash
# Run 75: the corrected compact test (and memcheck); csr_overlap's plan build from device CSR
# (issue 9: <= 3 SpMV-times from 1 M nonzeros); the compact stream in fp16 / bf16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run75.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/t; chmod +x $b/*
SECONDS=0
timeout 120 $b/t --gtest_filter='CsrFullOverlapTest.*' --gtest_brief=1 2>&1 | tail -3
timeout 120 compute-sanitizer --tool memcheck $b/t --gtest_filter='CsrFullOverlapTest.Compact*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; tail -2 $R/memcheck.txt
echo "[$SECONDS s]"
timeout 200 $b/tcsparse bench --suite default --methods csr_overlap --precisions fp64,fp32 --from-device \
  --plan-builds 3 --runs 10 --output $R/from-device.jsonl > $R/from-device.txt 2>&1
echo "from-device rc $? [$SECONDS s]"
python3 - $R/from-device.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["nnz"] < 1_000_000: continue
    print(r["matrix"][:22], r["precision"], "build ms %.3f" % r["plan_build_ms"], "spmv ms %.4f" % r["median_ms"],
          "SpMV-times %.2f" % (r["plan_build_ms"] / r["median_ms"]), "builds", r["details"].get("plan_builds_ms"))
PY
timeout 200 $b/tcsparse bench --suite default --methods csr_full_overlap --precisions fp16,bf16 \
  --variant csr:stream_format=csr --plan-builds 1 --runs 10 --output $R/compact-16.jsonl > $R/compact-16.txt 2>&1
echo "compact 16-bit rc $? [$SECONDS s]"
python3 - $R/compact-16.jsonl <<'PY'
import json, sys, math, collections
rows = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    r = json.loads(line); d = r.get("details", {})
    rows[(r["matrix"][:22], r["precision"], r["nnz"])][r.get("variant") or "default"] = (r["median_ms"], d.get("oneshot_over_arrays_copy", 0), d.get("eq2_speedup", 0), r.get("check_passed"))
agg = collections.defaultdict(list)
for k, v in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][2])):
    c, s = v.get("default"), v.get("csr")
    if not c or not s: continue
    print(*k, "| ms %.3f %.3f | own copy %.3f %.3f | eq2 %.2f %.2f" % (c[0], s[0], c[1], s[1], c[2], s[2]), "" if c[3] and s[3] else "CHECK FAILED")
    if k[2] >= 1_000_000:
        agg["time csr/compact " + k[1]].append(s[0] / c[0]); agg["eq2 compact " + k[1]].append(c[2]); agg["compact over own copy " + k[1]].append(c[1])
for l, xs in agg.items():
    pos = [x for x in xs if x > 0]
    print(l, "n", len(xs), "geomean(positive)", round(math.exp(sum(math.log(x) for x in pos) / max(len(pos), 1)), 3), "min", round(min(xs), 3), "max", round(max(xs), 3))
PY
gzip -f $R/*.jsonl
echo "[$SECONDS s]"

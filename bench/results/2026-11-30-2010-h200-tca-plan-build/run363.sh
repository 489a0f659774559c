#!/usr/bin/env bash
# Run 363: `new` (the uploaded CSR of a tiles build a temporary of the pool; the layouts of host
# builds copied into pool arrays by the upload path; gather's output rows in gather_output_index's
# order) against `base` (run 362's build). 1. tca GPU tests of `new` (16 shards) beside nothing
# else; 2. plan builds, DLMC at 90 %, n = 256, 5 builds, alternating binaries, two passes; the LLM
# weights' gather plans at n = 16; 3. the SpMM time of both on the 24 LLM weights, column-major
# (n = 8, 16, 32) and row-major (n = 16), alternating, two passes; 4. memcheck / synccheck.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run363.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='SpmmLayouts.Tca*:*Conformance*tca*:AutoPlan.*:*ApplyPromises*tca*:*FromDeviceCsr*tca*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 240 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt | gzip -c > $OUT/run363-gpu-tests.txt.gz
L=""; for s in 4096x4096 11008x4096 4096x11008 14336x4096; do L="$L llm:$s:s0.90:uniform"; done
for pass in 1 2; do for v in base new; do
  SECONDS=0
  timeout 60 $b/tcsparse_$v bench .mx/dlmc --methods tca --precisions fp16 --spmm-n 256 \
    --runs 10 --plan-builds 5 --output $R/dlmc-$v-$pass.jsonl > $R/dlmc-$v-$pass.txt 2>&1
  echo "dlmc $v $pass rc $? [$SECONDS s]"
  timeout 60 $b/tcsparse_$v bench $L --methods tca --precisions fp16 --spmm-n 16 --layout column_major \
    --runs 10 --plan-builds 3 --output $R/llmbuild-$v-$pass.jsonl > $R/llmbuild-$v-$pass.txt 2>&1
  echo "llm build $v $pass rc $? [$SECONDS s]"
done; done
weights() { for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in "$@"; do for d in uniform skewed; do echo -n " llm:$shape:s$s:$d"; done; done; done; }
for pass in 1 2; do for v in base new; do
  SECONDS=0
  timeout 100 $b/tcsparse_$v bench $(weights 0.90 0.95 0.70) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 32,16,8 --layout column_major --runs 20 --output $R/cm-$v-$pass.jsonl > $R/cm-$v-$pass.txt 2>&1
  echo "column-major $v $pass rc $? [$SECONDS s]"
  timeout 60 $b/tcsparse_$v bench $(weights 0.90 0.95) --methods tca,cublas_dense --precisions fp16 \
    --spmm-n 16 --layout row_major --runs 20 --output $R/rm-$v-$pass.jsonl > $R/rm-$v-$pass.txt 2>&1
  echo "row-major $v $pass rc $? [$SECONDS s]"
done; done
python3 - $R <<'PY'
import json, sys, statistics, collections, glob, math
R = sys.argv[1]
def load(pattern):
    out = collections.defaultdict(list)
    for f in sorted(glob.glob(f"{R}/{pattern}")):
        v = f.split("/")[-1].split("-")[1]
        for l in open(f):
            r = json.loads(l)
            if not r.get("check_passed", True): print("CHECK FAILED", f, r["matrix"], r["method"], r["n"])
            out[v].append(r)
    return out
print("== plan builds, DLMC n = 256 (median over matrices of the median of 5 builds, both passes)")
d = load("dlmc-*.jsonl")
for v in ("base", "new"):
    rs = d[v]
    print(f"{v}: build ms median {statistics.median(r['plan_build_ms'] for r in rs):.4f}, SpMM-times median "
          f"{statistics.median(r['plan_build_ms'] / r['median_ms'] for r in rs):.1f} (max "
          f"{max(r['plan_build_ms'] / r['median_ms'] for r in rs):.1f}), <= 10: {sum(r['plan_build_ms'] / r['median_ms'] <= 10 for r in rs)} of {len(rs)}")
    ph = collections.defaultdict(list)
    for r in rs:
        for k, x in r["details"].get("plan_phases_ms", {}).items(): ph[k].append(x)
    print("   " + ", ".join(f"{k} {statistics.median(x):.4f}" for k, x in ph.items()))
d = load("llmbuild-*.jsonl")
for v in ("base", "new"):
    for r in d[v]:
        p = r["details"].get("plan_phases_ms", {})
        print(f"{v} {r['matrix']} build {r['plan_build_ms']:.2f} ms " + ", ".join(f"{k} {x:.3f}" for k, x in p.items()))
for pat in ("cm-*.jsonl", "rm-*.jsonl"):
    d = load(pat)
    t = collections.defaultdict(list)
    for v, rs in d.items():
        for r in rs: t[(r["matrix"], r["n"], r["method"], v)].append(r["median_ms"] * 1000)
    print(f"== {pat}: tca time new / base, and speedup over dense (median of passes)")
    by_n = collections.defaultdict(list); sp = collections.defaultdict(list)
    for (m, n, me, v), x in sorted(t.items()):
        if me != "tca" or v != "new": continue
        base = statistics.median(t[(m, n, "tca", "base")]); new = statistics.median(x)
        dense = statistics.median(t[(m, n, "cublas_dense", "new")] + t[(m, n, "cublas_dense", "base")])
        s = m.split(":")[2]
        by_n[(n, s)].append(new / base); sp[(n, s, "base")].append(dense / base); sp[(n, s, "new")].append(dense / new)
        print(f"  {m:32s} n={n:2d} base {base:6.1f} new {new:6.1f} us  {base / new:5.3f}x")
    g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    for k in sorted(by_n):
        print(f"  n={k[0]} {k[1]}: new faster by {1 / g(by_n[k]):.3f}x; over dense base {g(sp[(k[0], k[1], 'base')]):.3f}x new {g(sp[(k[0], k[1], 'new')]):.3f}x")
PY
cd $R && tar czf $OUT/run363-records.tar.gz *.jsonl *.txt; cd - > /dev/null
for tool in memcheck synccheck; do
  timeout 80 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaGather*' --gtest_brief=1 > $OUT/run363-$tool.txt 2>&1
  echo "$tool rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/run363-$tool.txt | tail -3
done

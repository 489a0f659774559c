#!/usr/bin/env bash
# Run 283: row_order=auto (the new default): internal for square matrices of >= 1 M rows and >= 8
# nonzeros a row where >= 25 % of the nonzeros lie in the columns of long rows, measured by a
# kernel at plan time. GPU tests of DASP, the plan builds, the conformance suite and the
# automatic choice (8 shards), memcheck of the new tests; the large suite, three hbp-suite
# matrices and the default suite (fp64, fp16) against row_order=caller.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run283.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter="*Dasp*:*dasp*:PlanBuild.*:*Conformance*:*AutoChoice*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
echo "[$SECONDS s] memcheck"
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DaspGpu.InternalRowOrder*:DaspGpu.AutoRowOrder*' --gtest_brief=1 > $R/run283-memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/run283-memcheck.txt | tail -3
echo "[$SECONDS s] bench"
V="--variant caller:row_order=caller"
timeout 330 $b/tcsparse bench --suite large --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 1 --runs 20 $V \
  --output $R/run283-large.jsonl > /dev/null 2>&1; echo "large rc $? [$SECONDS s]"
timeout 100 $b/tcsparse bench gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=1000000,exponent=2.3,seed=62 \
  gen:rmat:scale=20,edge_factor=48,seed=65 gen:rmat:scale=21,edge_factor=48,seed=66 \
  --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 1 --runs 20 $V --output $R/run283-hbp.jsonl > /dev/null 2>&1; echo "hbp rc $? [$SECONDS s]"
timeout 150 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp,cusparse --precisions fp64,fp16 --plan-builds 3 --runs 30 \
  $V --output $R/run283-default.jsonl > /dev/null 2>&1; echo "default rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: print("error", r.get("matrix"), r.get("variant"), r.get("error")); continue
        d = r.get("details", {})
        t[(r["matrix"][:28], r["cols"], r["precision"], r["method"])][r.get("variant") or "default"].append((r["median_ms"], d.get("row_order"), d.get("long_column_share"), (d.get("plan_phases_ms") or {}).get("long_columns"), r.get("plan_build_ms")))
for k, d in sorted(t.items()):
    if k[3] != "dasp": continue
    base = statistics.median(x[0] for x in d["default"])
    x0 = d["default"][0]
    cus = statistics.median(x[0] for x in t[(k[0], k[1], k[2], "cusparse")]["default"])
    share = f"{x0[2]:.3f}" if x0[2] is not None else "-"
    measure = f"{x0[3]:.3f}" if x0[3] is not None else "-"
    line = f"{k[0]:28s} cols {k[1]:9d} {k[2]} auto={x0[1]:8s} share {share} ({measure} ms of {x0[4]:.1f}) {base*1e3:8.1f} us ({cus/base:.3f}x cusparse)"
    if "caller" in d:
        med = statistics.median(x[0] for x in d["caller"]); line += f" | caller {med*1e3:8.1f} (auto {med/base:.3f}x as fast, caller {cus/med:.3f}x cus)"
    print(line)
PY
cd $R && gzip *.jsonl && cat tests-*.txt | gzip > run283-gpu-tests.txt.gz && rm tests-*.txt && tar czf $OUT/run283.tgz . && cp run283.log $OUT/
echo "[$SECONDS s]"

#!/usr/bin/env bash
# Run 300: a plan build's worker thread no longer pins its download bounces beside the upload
# (a process-wide pool, reserved before the worker starts). The bisect probe again; the default
# suite's DASP plan builds, the previous binary (tcsparse_old, 2528f95) and the new one
# alternating, twice, fp64 / fp16 / bf16, three builds each; the GPU tests of the runtime, the
# upload path, the plans, DASP, HBP, conformance and the automatic choice (8 shards); memcheck.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run300.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
TCSPARSE_PROBE_QUICK=1 TCSPARSE_PROBE_BISECT=1 timeout 100 $b/tcsparse_upload_probe 64 \
  gen:stencil3d:nx=100,ny=100,nz=100,seed=2 gen:banded:n=2000000,bandwidth=5,seed=6 \
  > $R/run300-bisect.jsonl 2>&1
echo "bisect rc $? [$SECONDS s]"
grep '"what":"bisect"' $R/run300-bisect.jsonl | python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); print(f\"  {r['matrix'][4:22]:18s} {r['work']:34s} best {r['best_gbps']:5.1f} median {r['median_gbps']:5.1f} GB/s  work {r.get('median_work_ms', 0):5.2f} ms build {r.get('median_build_ms', 0):5.2f} ms\")"
for pass in 1 2; do
  for bin in tcsparse_old tcsparse; do
    timeout 110 $b/$bin bench --suite default --matrix-dir .mx --methods dasp --precisions fp64,fp16,bf16 \
      --plan-builds 3 --runs 20 --output $R/run300-default-$bin-$pass.jsonl > /dev/null 2>&1
    echo "$bin pass $pass rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, statistics
R = sys.argv[1]
rows = {}
for f in sorted(glob.glob(f"{R}/run300-default-*.jsonl")):
    binary = f.split("default-")[1].rsplit("-", 1)[0]
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r or r.get("nnz", 0) < 1e6: continue
        rows.setdefault((r["matrix"], r["precision"]), {}).setdefault(binary, []).append(r)
for (m, p), by in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    out = f"{m:20s} {p}"
    for binary in ("tcsparse_old", "tcsparse"):
        rs = by.get(binary, [])
        if not rs: continue
        builds = [b for r in rs for b in (r["details"].get("plan_builds_ms") or [r["plan_build_ms"]])]
        spmv = statistics.median(r["median_ms"] for r in rs)
        up = statistics.median(r["upload_ms"] for r in rs)
        out += f" | {binary[9:] or 'new'}: {statistics.median(builds):5.2f} ms = {statistics.median(builds)/spmv:5.1f} x, max {max(builds)/spmv:5.1f} (upload {up:4.2f})"
    print(out)
PY
echo "[$SECONDS s] tests"
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_brief=1 \
    --gtest_filter='DeviceTest.*:HostUploadTest.*:PlanBuild.*:PlanRefusal.*:CusparsePlan.*:*Dasp*:*dasp*:*Conformance*:*AutoChoice*:CsrFullOverlap*:SpmmLayouts.TcaPlans*:*Hbp*:*hbp*:DeviceCsrView*' \
    > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
echo "[$SECONDS s] memcheck"
timeout 100 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DeviceTest.*:DaspGpu.LayoutIsTheSameWhereverItIsBuiltUnderEveryUploadPolicy' --gtest_brief=1 > $R/run300-memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/run300-memcheck.txt | tail -3
cd $R && gzip *.jsonl && cat tests-*.txt | gzip > run300-gpu-tests.txt.gz && rm tests-*.txt
echo "[$SECONDS s]"

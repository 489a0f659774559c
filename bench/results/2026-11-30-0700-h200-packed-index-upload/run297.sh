#!/usr/bin/env bash
# Run 297: run 296's packing made uploads slower (a DMA waited for its slot's unpacking, which
# queued behind the device build's kernels; the SSE2 packing loop ran at 4.9 GB/s). Now a packed
# piece lands in a space of its own and the packing is compiled for AVX2 / SSE4.1 too. The
# upload probe (column indices alone and whole CSRs, staged against packed), the default suite's
# DASP plan builds (staged / automatic alternating, twice), the GPU tests of the upload path, the
# plans, DASP, HBP, conformance and the automatic choice (8 shards), memcheck of the packed tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run297.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
TCSPARSE_PROBE_QUICK=1 timeout 120 $b/tcsparse_upload_probe 256 gen:stencil3d:nx=100,ny=100,nz=100,seed=2 \
  gen:banded:n=2000000,bandwidth=5,seed=6 gen:random:rows=1000000,cols=1000000,dist=uniform,min=10,max=30,seed=3 \
  > $R/run297-upload-probe.jsonl 2>&1; echo "probe rc $? [$SECONDS s]"
grep -E '"what":"(indices|upload_csr_by_policy|staged|pinned_copy)"' $R/run297-upload-probe.jsonl | cut -c1-260
for pass in 1 2; do
  for upload in staged automatic; do
    timeout 110 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp --precisions fp64,fp16 \
      --plan-builds 3 --runs 20 --host-upload $upload --output $R/run297-default-$upload-$pass.jsonl > /dev/null 2>&1
    echo "$upload pass $pass rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, statistics
R = sys.argv[1]
rows = {}
for f in sorted(glob.glob(f"{R}/run297-default-*.jsonl")):
    upload = f.split("default-")[1].split("-")[0]
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r or r.get("nnz", 0) < 1e6: continue
        rows.setdefault((r["matrix"], r["precision"]), {}).setdefault(upload, []).append(r)
for (m, p), by in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    out = f"{m:22s} {p}"
    for upload in ("staged", "automatic"):
        rs = by.get(upload, [])
        if not rs: continue
        builds = [b for r in rs for b in (r["details"].get("plan_builds_ms") or [r["plan_build_ms"]])]
        spmv = statistics.median(r["median_ms"] for r in rs)
        up = statistics.median(r["upload_ms"] for r in rs)
        share = rs[0]["details"].get("csr_indices_packed_share", 0)
        out += f" | {upload}: build {statistics.median(builds):6.2f} ms = {statistics.median(builds)/spmv:5.1f} x (upload {up:5.2f} ms, packed {share:.2f})"
    print(out)
PY
echo "[$SECONDS s] tests"
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_brief=1 \
    --gtest_filter='HostUploadTest.*:PlanBuild.*:PlanRefusal.*:CusparsePlan.*:*Dasp*:*dasp*:*Conformance*:*AutoChoice*:CsrFullOverlap*:DeviceTest.*:SpmmLayouts.TcaPlans*:*Hbp*:*hbp*' \
    > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
echo "[$SECONDS s] memcheck"
timeout 100 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='HostUploadTest.Packed*:HostUploadTest.OnlyPacked*' --gtest_brief=1 > $R/run297-memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/run297-memcheck.txt | tail -3
cd $R && gzip *.jsonl && cat tests-*.txt | gzip > run297-gpu-tests.txt.gz && rm tests-*.txt
tar czf $OUT/run297.tgz -C $R .
echo "[$SECONDS s]"

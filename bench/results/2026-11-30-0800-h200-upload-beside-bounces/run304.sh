#!/usr/bin/env bash
# Run 304: the staging ring's chunks pinned by cudaHostRegister of page-aligned memory instead of
# cudaHostAlloc. The probe's ring pinning (cudaHostAlloc, registration of untouched and of written
# memory, the pool's own cold acquire) and its cold staged copy; a plan's first build in a fresh
# process (what a one-plan program pays), tcsparse_prev (fbb6b28, cudaHostAlloc) against the new
# binary, alternating, three processes each; GPU tests of the upload path, the runtime, the plan
# builds, DASP and conformance (8 shards).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run304.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
TCSPARSE_PROBE_QUICK=1 timeout 60 $b/tcsparse_upload_probe 256 > $R/run304-probe.jsonl 2>&1
echo "probe rc $? [$SECONDS s]"
grep -E '"what":"(host_alloc|host_register|host_register_touched|pool_acquire_cold|staged_cold|staged)"' $R/run304-probe.jsonl
for i in 1 2 3; do
  for bin in tcsparse_prev tcsparse; do
    for spec in gen:stencil3d:nx=100,ny=100,nz=100,seed=2 gen:replicate:file=.mx/suitesparse/cage11.mtx.gz,copies=35,seed=10; do
      timeout 30 $b/$bin bench $spec --methods dasp --precisions fp16 --plan-builds 1 --runs 5 \
        --output $R/run304-first-build-$bin.jsonl > /dev/null 2>&1 || echo "$bin $spec rc $?"
    done
  done
done
echo "[$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, statistics
for f in sorted(glob.glob(f"{sys.argv[1]}/run304-first-build-*.jsonl")):
    by = {}
    for l in open(f):
        r = json.loads(l)
        if "median_ms" in r: by.setdefault(r["matrix"][:34], []).append((r["plan_build_ms"], r["upload_ms"], r["median_ms"]))
    for m, v in by.items():
        print(f'{f.split("first-build-")[1]:22s} {m:34s} first builds {[round(x[0], 2) for x in v]} ms, uploads {[round(x[1], 2) for x in v]} ms, SpMV {statistics.median(x[2] for x in v)*1e3:.1f} us')
PY
echo "[$SECONDS s] tests"
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 220 $b/tcsparse_gpu_tests --gtest_brief=1 \
    --gtest_filter='DeviceTest.*:HostUploadTest.*:PlanBuild.*:PlanRefusal.*:*Dasp*:*dasp*:CsrFullOverlap*:*Conformance*' \
    > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cd $R && gzip *.jsonl && cat tests-*.txt | gzip > run304-gpu-tests.txt.gz && rm tests-*.txt
echo "[$SECONDS s]"

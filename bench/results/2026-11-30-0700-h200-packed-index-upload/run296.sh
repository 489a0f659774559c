#!/usr/bin/env bash
# Run 296: index arrays packed to 16 bits in the upload (HostUpload::packed, the new default
# through automatic). The default suite's DASP plan builds (3 each, fp64 / fp16) under
# --host-upload staged (the previous default) and under the default, one after the other, twice;
# then every GPU test (8 shards) and memcheck of the packed upload's tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run296.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
for pass in 1 2; do
  for upload in staged automatic; do
    timeout 110 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp --precisions fp64,fp16 \
      --plan-builds 3 --runs 20 --host-upload $upload --output $R/run296-default-$upload-$pass.jsonl > /dev/null 2>&1
    echo "$upload pass $pass rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, statistics
R = sys.argv[1]
rows = {}
for f in sorted(glob.glob(f"{R}/run296-default-*.jsonl")):
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
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 330 $b/tcsparse_gpu_tests --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
echo "[$SECONDS s] memcheck"
timeout 100 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='HostUploadTest.Packed*:HostUploadTest.OnlyPacked*' --gtest_brief=1 > $R/run296-memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/run296-memcheck.txt | tail -3
cd $R && gzip *.jsonl && cat tests-*.txt | gzip > run296-gpu-tests.txt.gz && rm tests-*.txt
tar czf $OUT/run296.tgz -C $R . 
echo "[$SECONDS s]"

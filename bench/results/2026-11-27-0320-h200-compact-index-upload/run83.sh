#!/usr/bin/env bash
# Run 83: compact index upload (HostUpload::compact, the new automatic for index arrays):
# upload tests + memcheck, then DASP / cuSPARSE plan builds staged vs automatic (compact).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run83.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/t; chmod +x $b/*
SECONDS=0
F='HostUploadTest.*:DaspGpu.LayoutIsTheSame*:DaspGpu.BuildThatRunsOut*:PlanBuild.*'
pids=()
for s in 0 1 2 3; do
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$s timeout 240 $b/t --gtest_filter="$F" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
cat $R/tests-*.txt | grep -E "PASSED|FAILED|tests ran|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
echo "[$SECONDS s]"
timeout 150 compute-sanitizer --tool memcheck $b/t --gtest_filter='HostUploadTest.CompactCopiesThroughSmallRings*:HostUploadTest.PlanBuiltUnderEveryPolicy*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; tail -3 $R/memcheck.txt
echo "[$SECONDS s]"
CAGE="gen:replicate:file=.exp/m2/suitesparse/cage11.mtx.gz,copies=35,seed=10"
for hu in staged automatic; do
  timeout 170 $b/tcsparse bench --suite default --matrix-dir .exp/m2 "$CAGE" --methods dasp,cusparse \
    --precisions fp64,fp16,bf16 --plan-builds 5 --runs 10 --host-upload $hu --output $R/plan-$hu.jsonl > $R/bench-$hu.txt 2>&1
  echo "$hu rc $? [$SECONDS s]"; tail -2 $R/bench-$hu.txt
done
python3 - $R <<'PY'
import json, sys, glob, collections
rows = collections.defaultdict(dict)
for hu in ("staged", "automatic"):
    for line in open(f"{sys.argv[1]}/plan-{hu}.jsonl"):
        r = json.loads(line)
        if r["nnz"] < 1_000_000: continue
        d = r.get("details", {})
        rows[(r["matrix"][:22], r["method"], r["precision"])][hu] = (r["plan_build_ms"], r["plan_build_ms"] / r["median_ms"], r.get("upload_ms", d.get("csr_upload_ms", 0)) or 0, r.get("check_passed"))
print("matrix method precision | staged: build ms, SpMV-times, upload ms | automatic (compact): same")
for k, v in rows.items():
    s = v.get("staged", (0, 0, 0, None)); a = v.get("automatic", (0, 0, 0, None))
    print("%-22s %-8s %-5s | %7.3f %6.1f %7.3f | %7.3f %6.1f %7.3f | %s %s" % (*k, *s[:3], *a[:3], s[3], a[3]))
PY
gzip -f $R/*.jsonl
cd $OUT && tar czf run83.tgz r run83.log && rm -rf r
echo "[$SECONDS s]"

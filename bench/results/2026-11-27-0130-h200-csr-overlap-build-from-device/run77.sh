#!/usr/bin/env bash
# Run 77: csr_overlap plan build from device CSR: table temporaries from the pool and one
# validation pass (one download) against run 74's binary, alternated twice; GPU tests and memcheck
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run77.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/after; xz -dc .device-bin/tcsparse_before.xz > $b/before; chmod +x $b/*
SECONDS=0
xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/t; chmod +x $b/t
F='DeviceCsrViewValidation.*:Catalogue/FromDeviceCsr.*:*CsrOverlap*:*csr_overlap*:*FullOverlap*:*Validation*'
pids=()
for s in 0 1 2 3; do
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$s timeout 200 $b/t --gtest_filter="$F" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
cat $R/tests-*.txt | grep -E "PASSED|FAILED|tests ran|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
rm -f $R/tests-*.txt
timeout 120 compute-sanitizer --tool memcheck $b/t --gtest_filter='DeviceCsrViewValidation.*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; tail -2 $R/memcheck.txt
echo "[$SECONDS s]"
for round in 1 2; do
  for v in before after; do
    timeout 120 $b/$v bench --suite default --methods csr_overlap --precisions fp64,fp32 --from-device \
      --plan-builds 5 --runs 10 --output $R/from-device-$v-$round.jsonl > /dev/null 2>&1
    echo "$v $round rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(sys.argv[1] + "/from-device-*.jsonl")):
    v = f.split("from-device-")[1].split("-")[0]
    for line in open(f):
        r = json.loads(line)
        if r["nnz"] < 1_000_000: continue
        rows[(r["matrix"][:20], r["precision"])][v].append((r["plan_build_ms"], r["median_ms"], r["details"].get("plan_builds_ms")))
print("matrix precision | before: build ms, SpMV-times (two runs) | after: build ms, SpMV-times | after's 5 builds (2nd run)")
for k, v in rows.items():
    b, a = v["before"], v["after"]
    print(*k, "|", " ".join("%.3f %.2f" % (x[0], x[0] / x[1]) for x in b), "|", " ".join("%.3f %.2f" % (x[0], x[0] / x[1]) for x in a), "|", [round(t, 3) for t in a[-1][2]])
PY
gzip -f $R/*.jsonl
echo "[$SECONDS s]"

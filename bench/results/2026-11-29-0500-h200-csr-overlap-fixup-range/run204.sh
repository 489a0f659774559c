#!/usr/bin/env bash
# Run 204: fewer CUDA calls in a plan from device CSR. The device CSR check's answer and its
# row-start bitmap are one allocation zeroed by one memset (the smallest failing row and entry
# kept as complements, raised by atomicMax, so that zero reads "nothing found"); csr_overlap's
# counting pass keeps its three temporaries in one allocation. tcsparse_prev: commit 5586ab0.
# 1. GPU tests of the device CSR check, plans from device CSR (every method) and csr_overlap's
#    table (16 shards); 2. memcheck of the check's tests and of the multi-round table test;
# 3. plans from device CSR on the default suite, csr_overlap, every precision, prev and new
#    alternating, four rounds each (5 builds a case).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run204.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*DeviceCsrView*:*FromDevice*:*from_device*:CsrOverlapGpu.*:*CsrOverlapGpuOnCatalogue.DeviceTableEqualsHostModel*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 280 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='DeviceCsrViewValidation.*:CsrOverlapGpu.TablesOfMoreTilesThanOneRound*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
SECONDS=0
for round in 1 2 3 4; do
  for v in prev new; do
    bin=$b/tcsparse; [ $v = prev ] && bin=$b/tcsparse_prev
    timeout 100 $bin bench --suite default --methods csr_overlap --precisions fp64,fp32,fp16,bf16 \
      --from-device --plan-builds 5 --runs 10 --output $R/from-device-$v-$round.jsonl > /dev/null 2>&1
    echo "from-device $v round $round rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, statistics, collections
R = sys.argv[1]
builds = collections.defaultdict(list)
for name in sorted(glob.glob(f"{R}/from-device-*.jsonl")):
    v, rnd = name.split("-")[-2], name.split("-")[-1].split(".")[0]
    worst = []
    for line in open(name):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", name, r["matrix"], r["precision"])
        if r["nnz"] < 1e6: continue
        worst.append((round(r["plan_build_ms"] / r["median_ms"], 2), r["matrix"], r["precision"], round(r["plan_build_ms"], 3)))
        builds[(r["matrix"], r["precision"], v)].append(r["plan_build_ms"])
    print(v, rnd, "highest:", sorted(worst)[-3:])
print("median build over the rounds, prev -> new (ms), matrices of 1 M nonzeros or more")
ratios = []
for (m, p, v), xs in sorted(builds.items()):
    if v != "prev": continue
    new = builds[(m, p, "new")]
    ratios.append(statistics.median(new) / statistics.median(xs))
    print(f"{m:20s} {p:5s} {statistics.median(xs):.3f} -> {statistics.median(new):.3f}")
print(f"new over prev: median {statistics.median(ratios):.3f}, min {min(ratios):.3f}, max {max(ratios):.3f}")
PY
cd $OUT && tar czf r.tgz r && rm -rf r

#!/usr/bin/env bash
# Run 89: the final tree of this change (auto refit): the whole GPU suite, 8 shards.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run89.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/t; chmod +x $b/t
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 480 $b/t --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
cat $R/tests-*.txt | grep -E "PASSED|FAILED|tests ran|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
python3 - $R <<'PY'
import re, sys, glob
ran = passed = skipped = 0
for f in glob.glob(sys.argv[1] + "/tests-*.txt"):
    t = open(f).read()
    m = re.search(r"(\d+) tests? from \d+ test suites? ran", t); ran += int(m.group(1)) if m else 0
    m = re.search(r"PASSED\s*\]\s*(\d+)", t); passed += int(m.group(1)) if m else 0
    m = re.search(r"SKIPPED\s*\]\s*(\d+)", t); skipped += int(m.group(1)) if m else 0
print(f"total: {ran} ran, {passed} passed, {skipped} skipped")
PY
echo "[$SECONDS s]"
cd $OUT && tar czf run89.tgz r run89.log && rm -rf r

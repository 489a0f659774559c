#!/usr/bin/env bash
# Run 92: tca kernel=tiles plan build: one census of the tiles (for the auto rule and the layout)
# and one allocation / one synchronisation for the device arrays; tca GPU tests, memcheck, and
# the DLMC plan builds at n = 256 (column-major, as the issue-11 measurement) before / after,
# alternated.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run92.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/before; xz -dc .device-bin/tcsparse_new.xz > $b/after
xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/t; chmod +x $b/*
SECONDS=0
F='SpmmLayouts.*:*Conformance*:*ApplyPromises*:*Tca*:*tca*'
pids=()
for s in 0 1 2 3; do
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$s timeout 300 $b/t --gtest_filter="$F" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
cat $R/tests-*.txt | grep -E "PASSED|FAILED|tests ran|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
echo "[$SECONDS s]"
timeout 150 compute-sanitizer --tool memcheck $b/t --gtest_filter='SpmmLayouts.TcaTiles*:SpmmLayouts.TcaAuto*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; tail -2 $R/memcheck.txt
echo "[$SECONDS s]"
for round in 1 2; do
  for v in before after; do
    timeout 120 $b/$v bench .matrices/dlmc/rn50 --methods tca --precisions fp16 --spmm-n 256 \
      --layout column_major --plan-builds 3 --runs 5 --output $R/dlmc-$v-$round.jsonl > /dev/null 2>&1
    echo "$v $round rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, statistics
for v in ("before", "after"):
    for f in sorted(glob.glob(f"{sys.argv[1]}/dlmc-{v}-*.jsonl")):
        rs = [json.loads(l) for l in open(f)]
        t = [r["plan_build_ms"] / r["median_ms"] for r in rs]
        print(f.split("/")[-1], len(rs), "SpMM-times median %.1f (min %.1f max %.1f), within 10: %d; host %.3f ms, upload %.3f ms, build %.3f ms (medians)" % (
            statistics.median(t), min(t), max(t), sum(x <= 10 for x in t),
            statistics.median(r["host_preprocess_ms"] for r in rs), statistics.median(r["upload_ms"] for r in rs),
            statistics.median(r["plan_build_ms"] for r in rs)))
PY
gzip -f $R/*.jsonl
cd $OUT && tar czf run92.tgz r run92.log && rm -rf r

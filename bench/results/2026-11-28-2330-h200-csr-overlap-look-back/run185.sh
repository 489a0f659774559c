#!/usr/bin/env bash
# Run 185: merge_carries=look_back (the tile where a cut row ends adds the earlier tiles' carries;
# no fixup kernel) as a variant. 1. GPU tests of merge tiles (16 shards); 2. memcheck and
# racecheck of the look-back test; 3. the default suite against cuSPARSE, every precision, with
# --variant lb:merge_carries=look_back, two rounds.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run185.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*Merge*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]|Failure|Expected|Which is" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.MergeTilesLookingBack*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
timeout 150 compute-sanitizer --tool racecheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.MergeTilesLookingBack*' --gtest_brief=1 > $R/racecheck.txt 2>&1
echo "racecheck rc $? [$SECONDS s]"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED" $R/racecheck.txt | tail -4
SECONDS=0
for round in 1 2; do
  timeout 150 $b/tcsparse bench --suite default --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
    --runs 20 --variant lb:merge_carries=look_back --output $R/default-$round.jsonl > /dev/null 2>&1
  echo "default round $round rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys
R = sys.argv[1]
for rnd in (1, 2):
    t = {}
    for line in open(f"{R}/default-{rnd}.jsonl"):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", r["matrix"], r["precision"], r["method"], r.get("variant"))
        t[(r["matrix"], r["precision"], r["method"], r.get("variant", ""))] = r
    print(f"## round {rnd}: merge-tile matrices, speedup over cuSPARSE: fixup -> look_back")
    for (m, p, me, v), r in sorted(t.items()):
        if me != "csr_overlap" or v or r["details"].get("partition") != "merge_path": continue
        c = t[(m, p, "cusparse", "")]["median_ms"]
        lb = t[(m, p, me, "lb")]
        print(f"{m:20s} {p:5s} {c / r['median_ms']:.3f} -> {c / lb['median_ms']:.3f}")
PY
cd $OUT && tar czf r.tgz r && rm -rf r

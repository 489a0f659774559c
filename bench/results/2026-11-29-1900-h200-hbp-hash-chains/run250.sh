#!/usr/bin/env bash
# Run 250: the GPU build skips the sort of the segments by block where there is one column block
# (the keys are already in order): every hbp GPU test and PlanBuild.*, memcheck
# of the build tests; the hbp suite before (old: run 248's code) and after in fp64 and fp16, two
# rounds in turns.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run250.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter="*hbp*:*Hbp*:PlanBuild.*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
echo "[$SECONDS s] memcheck"
timeout 150 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='HbpGpuBuild.CrowdedTablePositionsGiveTheHostOrder:HbpGpuBuild.EdgeShapes*:HbpGpuBuild.BothBuilds*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
echo "[$SECONDS s] builds"
for round in 1 2; do for v in old new; do
  bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
  timeout 150 $bin bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 --plan-builds 3 --runs 10 \
    --output $R/hbp-$v-$round.jsonl > /dev/null 2>&1; echo "hbp $v $round rc $? [$SECONDS s]"
done; done
python3 - $R <<'PY'
import json, sys, collections
R = sys.argv[1]
b = collections.defaultdict(lambda: collections.defaultdict(list))
for v in ("old", "new"):
    for rnd in (1, 2):
        try: lines = open(f"{R}/hbp-{v}-{rnd}.jsonl").readlines()
        except OSError: continue
        for l in lines:
            r = json.loads(l)
            b[(r["matrix"], r["precision"])][v].append((r["median_ms"], r["device_preprocess_ms"]))
print("matrix precision | spmv old new | build old new (ms) | build SpMV-times old new")
for (m, p), d in sorted(b.items()):
    g = lambda lab, k: min(x[k] for x in d[lab]) if d.get(lab) else float("nan")
    print(f"{m:22s} {p} | {g('old',0):.4f} {g('new',0):.4f} | {g('old',1):.2f} {g('new',1):.2f} | {g('old',1)/g('old',0):.1f} {g('new',1)/g('new',0):.1f}")
PY
cd $R && gzip *.jsonl tests-*.txt && tar czf $OUT/run250.tgz . && cp run250.log $OUT/
echo "[$SECONDS s]"

#!/usr/bin/env bash
# Run 254: step 2's radix sort within two buffers of keys and indices (CUB's DoubleBuffer, no third
# copy in its storage) and step 3's slot nonzero counts in 32 bits: a lower peak of temporaries.
# Every hbp GPU test, PlanBuild.* and DeviceTest.*, memcheck of the build tests; the hbp suite with
# cc3bfcf (old: run 252's code) and this one (new), fp64 and fp16, three rounds in turns.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run254.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter="*hbp*:*Hbp*:PlanBuild.*:DeviceTest.*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
grep -h "info \] rmat 20" $R/tests-*.txt | head -3
echo "[$SECONDS s] memcheck"
timeout 150 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='HbpGpuBuild.CrowdedTablePositionsGiveTheHostOrder:HbpGpuBuild.EdgeShapes*:HbpGpuBuild.BothBuilds*:DeviceTest.SmallDownloads*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
echo "[$SECONDS s] builds"
for round in 1 2 3; do for v in old new; do
  bin=$b/tcsparse; [ $v != new ] && bin=$b/tcsparse_$v
  timeout 150 $bin bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 --plan-builds 3 --runs 10 \
    --output $R/hbp-$v-$round.jsonl > /dev/null 2>&1; echo "hbp $v $round rc $? [$SECONDS s]"
done; done
python3 - $R <<'PY'
import json, sys, collections, glob
R = sys.argv[1]
b = collections.defaultdict(lambda: collections.defaultdict(list))
for v in ("old", "new"):
    for f in sorted(glob.glob(f"{R}/hbp-{v}-*.jsonl")):
        for l in open(f):
            r = json.loads(l); ph = r["details"]["plan_phases_ms"]
            b[(r["matrix"], r["precision"])][v].append((r["device_preprocess_ms"], r["median_ms"], sum(x for k, x in ph.items() if k != "release"), ph.get("release", float("nan"))))
print("matrix precision | build ms old: min of rounds (SpMV-times) | new | new steps / release (ms) of its fastest round")
for (m, p), d in sorted(b.items()):
    o = min(d["old"]); n = min(d["new"])
    print(f"{m:22s} {p} | {o[0]:7.2f} ({o[0]/o[1]:5.1f}) | {n[0]:7.2f} ({n[0]/n[1]:5.1f}) | {n[2]:.2f} / {n[3]:.2f} (old {o[3]:.2f})   rounds old {' '.join(f'{x[0]:.2f}' for x in d['old'])} new {' '.join(f'{x[0]:.2f}' for x in d['new'])}")
PY
cd $R && gzip *.jsonl tests-*.txt && tar czf $OUT/run254.tgz . && cp run254.log $OUT/
echo "[$SECONDS s]"

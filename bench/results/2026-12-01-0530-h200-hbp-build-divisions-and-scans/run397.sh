#!/usr/bin/env bash
# Run 397: the final build. Step 1 counts two things a row (its segments, whether that is one)
# and scans them as one packed word a row; the combine rows and partial sums follow from both
# (no third array or scan). GPU tests of HBP, DeviceAlgorithms, PlanBuild, conformance and the
# automatic choice (16 shards); memcheck of the build comparisons; six matrices' builds
# (one-column-block small ones and the band), this build and b578620's alternating, three
# rounds; the hbp suite's builds, both, one round each.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run397.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin397; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*:DeviceAlgorithms*:PlanBuild*:*Conformance*:*AutoPlan*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "$? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
cat $R/tests-*.txt | grep -E "^\[  PASSED" | awk '{s+=$4} END {print "passed total", s}'
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/run397-gpu-tests.txt; rm $R/tests-*.txt; gzip $R/run397-gpu-tests.txt
echo "[$SECONDS s] memcheck"
timeout 120 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='DeviceAlgorithms*.ExclusiveSums*:HbpGpuBuild.BothBuilds*:HbpGpuBuild.*Stripe*:HbpGpuBuild.*OneBlock*:HbpGpuBuildOnCatalogue.DeviceBuildGivesTheHostBuildsArraysInFp16/*' \
  --gtest_brief=1 > $R/run397-memcheck.txt 2>&1; echo "memcheck rc $?"; tail -3 $R/run397-memcheck.txt
echo "[$SECONDS s] builds"
M="gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61 gen:rmat:scale=18,edge_factor=48,seed=63 gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67 .mx/suitesparse/rajat01.mtx.gz gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=10 gen:banded:n=24000000,bandwidth=1,seed=68"
for round in 1 2 3; do
  order="old new"; [ $round = 2 ] && order="new old"
  for which in $order; do
    bin=$b/tcsparse; [ $which = old ] && bin=$b/tcsparse_old
    timeout 60 $bin bench $M --methods hbp --precisions fp64,fp16 \
      --plan-builds 5 --runs 20 --output $R/run397-small-$which-$round.jsonl > /dev/null 2>&1
    echo "small round $round $which rc $? [$SECONDS s]"
  done
done
for which in new old; do
  [ $SECONDS -gt 430 ] && break
  bin=$b/tcsparse; [ $which = old ] && bin=$b/tcsparse_old
  timeout 100 $bin bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 \
    --plan-builds 5 --runs 20 --output $R/run397-suite-$which-1.jsonl > /dev/null 2>&1
  echo "suite $which rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, statistics
R = sys.argv[1]
for kind in ("small", "suite"):
    t = {}
    for f in sorted(glob.glob(f"{R}/run397-{kind}-*-*.jsonl")):
        which = f.split(f"run397-{kind}-")[1].split("-")[0]
        for l in open(f):
            r = json.loads(l)
            if "median_ms" not in r: print("error", f, r.get("matrix"), r.get("error")); continue
            if not r.get("check_passed", True): print("CHECK FAILED", f, r["matrix"], r["precision"])
            d = r["details"]
            e = t.setdefault((r["matrix"], r["precision"]), {}).setdefault(which, {"apply": [], "builds": [], "nnz": r["nnz"]})
            e["apply"].append(r["median_ms"]); e["builds"] += d.get("device_preprocess_builds_ms", [])
    print(kind)
    for (m, p), d in sorted(t.items(), key=lambda x: (x[0][1], x[0][0])):
        line = f"  {m[:30]:30s} {p} nnz {list(d.values())[0]['nnz']/1e6:6.1f}M"
        for w in ("old", "new"):
            if w not in d: continue
            a = statistics.median(d[w]["apply"]); bm = statistics.median(d[w]["builds"])
            line += f" | {w} apply {a*1e3:7.1f} us build {bm:7.3f} ms = {bm/a:5.1f} (max {max(d[w]['builds'])/a:5.1f})"
        if "old" in d and "new" in d:
            line += f" | old/new {statistics.median(d['old']['builds'])/statistics.median(d['new']['builds']):.3f}x"
        print(line)
PY
cd $R && tar czf run397-builds.tar.gz run397-*-*.jsonl && rm -f run397-*-*.jsonl

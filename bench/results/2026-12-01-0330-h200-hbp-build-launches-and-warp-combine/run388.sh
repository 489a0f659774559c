#!/usr/bin/env bash
# Run 388: hbp's GPU build with fewer launches (one column block: the tasks in one kernel from the
# closed form; every build: the groups' two scans in one, block_group_begin and group_col written
# by scatter_groups_kernel). The HBP and device-algorithm GPU tests (8 shards), memcheck of the
# build comparisons; plan builds of the whole hbp suite, fp64 / fp16, c82d72b's binary
# (tcsparse_old) and this one alternating, three rounds, five builds a case.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r388; mkdir -p $R
exec > >(tee -a $R/run388.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin388; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*:DeviceAlgorithms*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/run388-gpu-tests.txt; rm $R/tests-*.txt
echo "[$SECONDS s] memcheck"
timeout 150 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='HbpGpuBuild.*OneBlock*:HbpGpuBuild.BothBuilds*:HbpGpuBuildOnCatalogue.DeviceBuildGivesTheHostBuildsArraysInFp16/*:DeviceAlgorithms*.ExclusiveSums*' \
  --gtest_brief=1 > $R/run388-memcheck.txt 2>&1; echo "memcheck rc $?"; tail -3 $R/run388-memcheck.txt
echo "[$SECONDS s] builds"
for round in 1 2 3; do
  order="old new"; [ $round = 2 ] && order="new old"
  for which in $order; do
    bin=$b/tcsparse; [ $which = old ] && bin=$b/tcsparse_old
    timeout 150 $bin bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 \
      --plan-builds 5 --runs 20 --output $R/run388-$which-$round.jsonl > /dev/null 2>&1
    echo "round $round $which rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, statistics
R = sys.argv[1]
t = {}
for f in sorted(glob.glob(f"{R}/run388-*-*.jsonl")):
    which = f.split("run388-")[1].split("-")[0]
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        if not r.get("check_passed", True): print("CHECK FAILED", f, r["matrix"], r["precision"])
        t.setdefault((r["matrix"], r["precision"], which), []).append(r)
for p in ("fp64", "fp16"):
    for m in sorted({k[0] for k in t if k[1] == p}):
        line = f"{m[:22]:22s} {p} nnz {t[(m,p,'new')][0]['nnz']/1e6:6.1f}M"
        for which in ("old", "new"):
            rs = t[(m, p, which)]
            spmv = statistics.median(r["median_ms"] for r in rs)
            builds = [b for r in rs for b in r["details"]["device_preprocess_builds_ms"]]
            line += f" | {which} spmv {spmv*1e3:7.1f} us build {statistics.median(builds):.3f} ms = {statistics.median(builds)/spmv:5.1f} (max {max(builds)/spmv:5.1f})"
        ob = statistics.median(b for r in t[(m,p,'old')] for b in r["details"]["device_preprocess_builds_ms"])
        nb = statistics.median(b for r in t[(m,p,'new')] for b in r["details"]["device_preprocess_builds_ms"])
        print(line + f" | old/new {ob/nb:.3f}x")
PY
cd $R && gzip -f *.jsonl run388-gpu-tests.txt && cp run388-* $OUT/
echo "[$SECONDS s]"

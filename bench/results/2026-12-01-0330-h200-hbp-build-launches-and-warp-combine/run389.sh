#!/usr/bin/env bash
# Run 389: run 388's build change with scatter_groups_kernel reading a slot's block only at a
# group's first slot, one-column-block builds counting the hash's histogram and the blocks in
# step 1 (two waits), and the combine adding lists of more than 32 partial sums by the whole
# warp. The HBP and device-algorithm GPU tests (8 shards), memcheck of the new test and the build
# comparisons; the whole hbp suite, fp64 / fp16, c82d72b's binary (tcsparse_old) and this one
# alternating, three rounds, five builds a case; then this one with DASP and cuSPARSE.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r389; mkdir -p $R
exec > >(tee -a $R/run389.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin389; mkdir -p $b
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
cat $R/tests-*.txt > $R/run389-gpu-tests.txt; rm $R/tests-*.txt
echo "[$SECONDS s] memcheck"
timeout 150 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='HbpGpu.CombineLists*:HbpGpuBuild.*OneBlock*:HbpGpuBuild.BothBuilds*:HbpGpuBuildOnCatalogue.DeviceBuildGivesTheHostBuildsArraysInFp16/*:DeviceAlgorithms*.ExclusiveSums*' \
  --gtest_brief=1 > $R/run389-memcheck.txt 2>&1; echo "memcheck rc $?"; tail -3 $R/run389-memcheck.txt
echo "[$SECONDS s] builds"
for round in 1 2 3; do
  order="old new"; [ $round = 2 ] && order="new old"
  for which in $order; do
    bin=$b/tcsparse; [ $which = old ] && bin=$b/tcsparse_old
    timeout 150 $bin bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 \
      --plan-builds 5 --runs 20 --output $R/run389-$which-$round.jsonl > /dev/null 2>&1
    echo "round $round $which rc $? [$SECONDS s]"
  done
done
timeout 150 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp,dasp,cusparse --precisions fp64,fp16 \
  --runs 20 --output $R/run389-suite.jsonl > /dev/null 2>&1; echo "suite rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, statistics, math
R = sys.argv[1]
t = {}
for f in sorted(glob.glob(f"{R}/run389-*-*.jsonl")):
    which = f.split("run389-")[1].split("-")[0]
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
            comb = statistics.median(r["details"].get("combine_ms", 0.0) for r in rs)
            line += f" | {which} spmv {spmv*1e3:7.1f} us comb {comb*1e3:6.1f} build {statistics.median(builds):.3f} ms = {statistics.median(builds)/spmv:5.1f} (max {max(builds)/spmv:5.1f})"
        ob = statistics.median(b for r in t[(m,p,'old')] for b in r["details"]["device_preprocess_builds_ms"])
        nb = statistics.median(b for r in t[(m,p,'new')] for b in r["details"]["device_preprocess_builds_ms"])
        os_ = statistics.median(r["median_ms"] for r in t[(m,p,'old')]); ns = statistics.median(r["median_ms"] for r in t[(m,p,'new')])
        print(line + f" | build old/new {ob/nb:.3f}x, spmv old/new {os_/ns:.3f}x")
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
s = {}
for l in open(f"{R}/run389-suite.jsonl"):
    r = json.loads(l)
    if "median_ms" not in r: continue
    if not r.get("check_passed", True): print("CHECK FAILED suite", r["matrix"], r["precision"], r["method"])
    s[(r["matrix"], r["precision"], r["method"])] = r
for p in ("fp64", "fp16"):
    ms = sorted({k[0] for k in s if k[1] == p})
    rows = [(m, s[(m,p,"cusparse")]["median_ms"], s[(m,p,"hbp")]["median_ms"], s[(m,p,"dasp")]["median_ms"], s[(m,p,"cusparse")]["cols"]) for m in ms]
    for m, c, h, d, cols in rows: print(f"suite {p} {m[:22]:22s} cus {c*1e3:8.1f} hbp {h*1e3:8.1f} dasp {d*1e3:8.1f} hbp/cus {c/h:.3f}x")
    for name, sel in ((">=8M", [r for r in rows if r[4] >= 8_000_000]), ("whole", rows)):
        print(f"suite {p} {name} ({len(sel)}): hbp over cuSPARSE {g([r[1]/r[2] for r in sel]):.3f}x, over DASP {g([r[3]/r[2] for r in sel]):.3f}x")
PY
cd $R && gzip -f *.jsonl run389-gpu-tests.txt && cp run389-* $OUT/
echo "[$SECONDS s]"

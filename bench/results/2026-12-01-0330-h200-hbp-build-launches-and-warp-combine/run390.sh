#!/usr/bin/env bash
# Run 390: the combine's warp lists as a parameter (combine_warp_partials, default 64; run 389
# had them fixed at 32). The HBP and device-algorithm GPU tests (8 shards), memcheck of the new
# test; the whole hbp suite, fp64 / fp16, with combine_warp_partials off / 32 / 128 / 256 as
# variants beside the default; then c82d72b's binary (tcsparse_old) and this one alternating,
# two rounds, five builds a case.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r390; mkdir -p $R
exec > >(tee -a $R/run390.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin390; mkdir -p $b
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
cat $R/tests-*.txt > $R/run390-gpu-tests.txt; rm $R/tests-*.txt
echo "[$SECONDS s] memcheck"
timeout 150 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='HbpGpu.CombineLists*:HbpGpu.Launch*:HbpGpuBuild.*OneBlock*:HbpGpuBuild.BothBuilds*:HbpGpuBuildOnCatalogue.DeviceBuildGivesTheHostBuildsArraysInFp16/*:DeviceAlgorithms*.ExclusiveSums*' \
  --gtest_brief=1 > $R/run390-memcheck.txt 2>&1; echo "memcheck rc $?"; tail -3 $R/run390-memcheck.txt
echo "[$SECONDS s] sweep"
timeout 300 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 --runs 20 \
  --variant off:combine_warp_partials=off --variant w32:combine_warp_partials=32 \
  --variant w128:combine_warp_partials=128 --variant w256:combine_warp_partials=256 \
  --output $R/run390-sweep.jsonl > /dev/null 2>&1; echo "sweep rc $? [$SECONDS s]"
echo "[$SECONDS s] builds"
for round in 1 2; do
  order="old new"; [ $round = 2 ] && order="new old"
  for which in $order; do
    bin=$b/tcsparse; [ $which = old ] && bin=$b/tcsparse_old
    timeout 150 $bin bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 \
      --plan-builds 5 --runs 20 --output $R/run390-$which-$round.jsonl > /dev/null 2>&1
    echo "round $round $which rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, statistics, math
R = sys.argv[1]
t = {}
for f in sorted(glob.glob(f"{R}/run390-*-*.jsonl")):
    which = f.split("run390-")[1].split("-")[0]
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
s = {}
for l in open(f"{R}/run390-sweep.jsonl"):
    r = json.loads(l)
    if "median_ms" not in r: continue
    if not r.get("check_passed", True): print("CHECK FAILED sweep", r["matrix"], r["precision"], r.get("variant"))
    s[(r["matrix"], r["precision"], r.get("variant") or "w64")] = r
names = ["off", "w32", "w64", "w128", "w256"]
for p in ("fp64", "fp16"):
    for m in sorted({k[0] for k in s if k[1] == p}):
        line = f"sweep {p} {m[:22]:22s}"
        for v in names:
            r = s.get((m, p, v))
            if r: line += f" | {v} {r['median_ms']*1e3:7.1f} ({r['details'].get('combine_ms', 0)*1e3:5.1f})"
        print(line)
    for v in names:
        xs = [s[(m,p,'off')]['median_ms'] / s[(m,p,v)]['median_ms'] for m in {k[0] for k in s if k[1] == p} if (m,p,v) in s and (m,p,'off') in s]
        print(f"sweep {p} {v}: over off geomean {math.exp(sum(map(math.log, xs))/len(xs)):.4f}x min {min(xs):.3f} max {max(xs):.3f}")
PY
cd $R && tar czf run390-builds.tar.gz run390-old-*.jsonl run390-new-*.jsonl && gzip -f run390-sweep.jsonl run390-gpu-tests.txt && cp run390-builds.tar.gz run390-sweep.jsonl.gz run390-gpu-tests.txt.gz run390-memcheck.txt run390.log $OUT/
echo "[$SECONDS s]"

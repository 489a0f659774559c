#!/usr/bin/env bash
# Run 384: the final build (slot_output=partial's host model, give_every_slot_a_partial, used by
# build=host and compared with the GPU's rewrite): the HBP, plan-build, conformance and
# auto-choice GPU tests (8 shards), memcheck of the new tests; the whole hbp suite, fp64 and fp16,
# hbp / DASP / cuSPARSE, two passes (three plan builds in the first).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r384; mkdir -p $R
exec > >(tee -a $R/run384.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin384; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*:PlanBuild.*:*Conformance*:*AutoChoice*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/run384-gpu-tests.txt; rm $R/tests-*.txt
echo "[$SECONDS s] memcheck"
timeout 200 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='HbpGpu.EverySlot*:HbpGpu.AutoGivesEverySlot*:HbpGpu.MemsetSpmvAndCombineCapture*:HbpGpuBuild.BothBuilds*:HbpGpuBuildOnCatalogue.DeviceBuildGivesTheHostBuildsArraysBitwise/stencil*' \
  --gtest_brief=1 > $R/run384-memcheck.txt 2>&1; echo "memcheck rc $?"
tail -4 $R/run384-memcheck.txt
echo "[$SECONDS s] bench"
for pass in 1 2; do
  builds=1; [ $pass = 1 ] && builds=3
  timeout 200 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp,dasp,cusparse --precisions fp64,fp16 \
    --plan-builds $builds --runs 20 --output $R/run384-$pass.jsonl > $R/run384-$pass.txt 2>&1; echo "pass $pass rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, math, statistics
R = sys.argv[1]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
t = {}
for f in sorted(glob.glob(f"{R}/run384-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        if not r.get("check_passed", True): print("CHECK FAILED", f, r["matrix"], r["precision"], r["method"])
        t.setdefault((r["matrix"], r["precision"], r["method"]), []).append(r)
for p in ("fp64", "fp16"):
    rows = []
    for m in sorted({k[0] for k in t if k[1] == p}):
        get = lambda x: t.get((m, p, x))
        c, n, d = get("cusparse"), get("hbp"), get("dasp")
        if not (c and n and d): print("missing", m, p); continue
        ms = lambda rs: statistics.median(r["median_ms"] for r in rs)
        builds = [b for r in n for b in r["details"].get("device_preprocess_builds_ms", [])]
        rows.append((m, ms(c)/ms(n), ms(c)/ms(d), c[0]["cols"]))
        print(f"{m[:24]:24s} {p} nnz {c[0]['nnz']/1e6:6.1f}M cus {ms(c)*1e3:8.1f} | hbp {ms(n)*1e3:8.1f} ({n[0]['details'].get('slot_output')}) | dasp {ms(d)*1e3:8.1f} | hbp over cus {ms(c)/ms(n):.3f}x, over dasp {ms(d)/ms(n):.3f}x | build {statistics.median(builds)/ms(n):.1f} SpMV-times (median of {len(builds)}, max {max(builds)/ms(n):.1f})")
    big = [r for r in rows if r[3] >= 8_000_000]
    for name, sel in ((">=8M cols", big), ("whole suite", rows)):
        print(f"{p} {name} ({len(sel)}): over cuSPARSE hbp {g([r[1] for r in sel]):.3f}x dasp {g([r[2] for r in sel]):.3f}x; hbp over dasp {g([r[1]/r[2] for r in sel]):.3f}x")
PY
cd $R && gzip -f *.jsonl run384-gpu-tests.txt && cp run384-*.gz run384-*.txt run384.log $OUT/
echo "[$SECONDS s]"

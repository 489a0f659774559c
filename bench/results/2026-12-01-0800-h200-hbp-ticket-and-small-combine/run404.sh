#!/usr/bin/env bash
# Run 404: hbp's apply without the ticket's memset (the ticket resets itself at the end of each
# launch), the combine of few rows a warp a row (combine_warp_rows), the combine a programmatic
# dependent launch. GPU tests of hbp (8 shards) and the conformance suite's hbp cases; memcheck
# and racecheck of the changed tests; then the one-column-block matrices of the hbp suite, the
# previous binary (tcsparse_old: 6484a8b's hbp) and the new one alternating, with the new
# combine_warp_rows=off as a variant, fp64 and fp16, two passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run404.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 330 $b/tcsparse_gpu_tests --gtest_brief=1 \
    --gtest_filter='*Hbp*:*hbp*:CsrOverlap*Merge*:ArchDependentLaunch*' > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo "[$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
timeout 150 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests --gtest_brief=1 \
  --gtest_filter='HbpGpu.RepeatedApplies*:HbpGpu.CombineLists*:HbpGpu.SpmvAndCombineCapture*:HbpGpu.EmptyShapes*' \
  > $R/run404-memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/run404-memcheck.txt | tail -3
timeout 100 compute-sanitizer --tool racecheck $b/tcsparse_gpu_tests --gtest_brief=1 \
  --gtest_filter='HbpGpu.RepeatedApplies*' > $R/run404-racecheck.txt 2>&1
echo "racecheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/run404-racecheck.txt | tail -3
M="gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61
gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=1000000,exponent=2.3,seed=62
gen:rmat:scale=18,edge_factor=48,seed=63 gen:rmat:scale=19,edge_factor=48,seed=64
gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67
.mx/suitesparse/rajat01.mtx.gz gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=10"
for pass in 1 2; do
  for bin in tcsparse_old tcsparse; do
    V=""; [ $bin = tcsparse ] && V="--variant cwr_off:combine_warp_rows=off"
    timeout 100 $b/$bin bench $M --methods hbp,cusparse --precisions fp64,fp16 --runs 50 --plan-builds 1 \
      $V --output $R/run404-$bin-$pass.jsonl > /dev/null 2>&1
    echo "$bin pass $pass rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, statistics, collections, math
R = sys.argv[1]
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/run404-tcsparse*.jsonl")):
    b = "old" if "tcsparse_old" in f else "new"
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        lab = r.get("variant") or r["method"]
        if lab == "cusparse": lab = "cusparse"
        elif lab == "hbp": lab = b
        elif b == "old": continue
        d = r.get("details", {})
        t[(r["matrix"][:34], r["precision"])][lab].append((r["median_ms"] * 1e3, d.get("spmv_ms", 0) * 1e3, d.get("combine_ms", 0) * 1e3))
labs = ["cusparse", "old", "new", "cwr_off"]
print("us (spmv + combine), median of passes")
geo = collections.defaultdict(list)
for k, by in sorted(t.items()):
    out = f"{k[0]:34s} {k[1]}"
    for lab in labs:
        xs = by.get(lab)
        if not xs: out += " |  -  "; continue
        m = statistics.median(x[0] for x in xs); sp = statistics.median(x[1] for x in xs); c = statistics.median(x[2] for x in xs)
        out += f" | {lab} {m:6.1f} ({sp:5.1f}+{c:4.1f})"
    print(out)
    o = statistics.median(x[0] for x in by["old"]); cu = statistics.median(x[0] for x in by["cusparse"])
    for lab in ("new", "cwr_off"):
        if by.get(lab): geo[(k[1], lab)].append(o / statistics.median(x[0] for x in by[lab]))
    geo[(k[1], "old/cusparse")].append(cu / o); geo[(k[1], "new/cusparse")].append(cu / statistics.median(x[0] for x in by["new"]))
for (p, lab), v in sorted(geo.items()):
    print(p, lab, "geomean", round(math.exp(sum(map(math.log, v)) / len(v)), 3), "min", round(min(v), 3), "max", round(max(v), 3))
PY
cd $R && gzip *.jsonl && cat tests-*.txt | gzip > run404-gpu-tests.txt.gz && rm tests-*.txt && echo "[$SECONDS s]"

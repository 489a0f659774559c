#!/usr/bin/env bash
# Run: hbp GPU build, rows of more than 1024 nonzeros cut into chunks (a warp a chunk): the hbp GPU tests,
# memcheck and racecheck of the new test, and the plan build before (HEAD) / after on the hbp suite (fp64).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run61.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for x in tcsparse tcsparse_old tcsparse_gpu_tests; do xz -dc .device-bin/$x.xz > $b/$x; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="*hbp*:*Hbp*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
cat $R/tests-*.txt | grep -E "PASSED|FAILED|tests ran" | sort | uniq -c
grep -h -A10 Failure $R/tests-*.txt | head -30
rm -f $R/tests-*.txt
echo "[$SECONDS s] sanitizers"
for tool in memcheck racecheck; do
  timeout 200 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter='HbpGpuBuild.RowsCutIntoChunksGiveTheHostBuildsArrays' --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $?"; tail -4 $R/$tool.txt
done
echo "[$SECONDS s] plan builds"
for v in old new; do
  bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
  timeout 150 $bin bench --suite hbp --matrix-dir .exp/m --methods hbp --precisions fp64 --plan-builds 3 --runs 10 \
    --output $R/build-$v.jsonl > $R/build-$v.txt 2>&1; echo "$v rc $? [$SECONDS s]"
done
python3 - $R/build-old.jsonl $R/build-new.jsonl <<'PY'
import json, sys
def load(p): return {r["matrix"]: r for r in map(json.loads, open(p))}
old, new = load(sys.argv[1]), load(sys.argv[2])
for m in new:
    o, n = old.get(m), new[m]
    f = lambda r: (r.get("plan_build_ms"), r.get("device_preprocess_ms"), r["median_ms"])
    d=n.get("details",{}).get("plan_phases_ms",{}); do_=o.get("details",{}).get("plan_phases_ms",{})
    print(m, "old phases", do_, "\n   new phases", d)
    print(f"{m:24s} old build {f(o)[0]:8.2f} ms dev {f(o)[1]} | new build {f(n)[0]:8.2f} ms dev {f(n)[1]} | spmv {n['median_ms']:.4f} ms -> {f(n)[0]/n['median_ms']:.1f} SpMV-times (old {f(o)[0]/o['median_ms']:.1f})")
PY
gzip -f $R/*.jsonl
echo "[$SECONDS s]"

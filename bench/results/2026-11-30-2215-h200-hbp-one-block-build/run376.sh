#!/usr/bin/env bash
# Run 376: the pool keeps 64 MiB between builds (kTemporaryMemoryKeptBetweenBuilds; small builds
# still those of at most 32 MiB, kSmallBuildTemporaryBytes), after run 375 found the fp64 rajat01
# replica's hbp build mapping its peak anew each time. (1) the whole GPU test suite, 16 shards,
# and memcheck on the hbp build tests and PlanBuild; (2) hbp GPU builds in SpMV-times on the hbp
# suite up to 80 M nonzeros, this binary and the session's first (tcsparse_old: before the
# one-block path, the scans of three and the pool change) alternating, two rounds.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run376.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 420 $b/tcsparse_gpu_tests > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h "OK \] PlanBuild" $R/tests-*.txt
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt | gzip -c > $OUT/run376-gpu-tests.txt.gz
timeout 240 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='HbpGpuBuild.EdgeShapes*:HbpGpuBuild.RowsCutIntoChunks*:PlanBuild.*' > $OUT/run376-memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $OUT/run376-memcheck.txt
for round in 1 2; do
  for bin in tcsparse tcsparse_old; do
    timeout 240 $b/$bin bench --suite hbp --matrix-dir .mx --max-nnz 80000000 --methods hbp \
      --precisions fp64,fp16 --plan-builds 5 --output $R/build-$bin-$round.jsonl > /dev/null 2>&1
    echo "bench $bin round $round rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/build-*.jsonl")):
    tag = f.split("build-")[1].rsplit("-", 1)[0]
    for l in open(f):
        r = json.loads(l)
        if r.get("method") != "hbp": continue
        k = (r["matrix"][:28], r["precision"])
        rows[k].setdefault(tag, []).append((r["device_preprocess_ms"], r["median_ms"], r["nnz"]))
print(f"{'matrix':28s} prec  new: build ms / SpMV-times (two rounds)   | old (the session's first binary)")
for k, v in rows.items():
    line = f"{k[0]:28s} {k[1]:5s}"
    nnz = None
    for tag in ("tcsparse", "tcsparse_old"):
        for build, spmv, nnz in v.get(tag, []):
            line += f"  {build:7.3f} / {build / spmv:5.1f}"
        line += "   |"
    print(f"{line} nnz {nnz}")
PY
cd $R && tar czf $OUT/run376-records.tar.gz build-*.jsonl
echo "done [$SECONDS s]"

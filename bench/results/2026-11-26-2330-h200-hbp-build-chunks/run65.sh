#!/usr/bin/env bash
# Run: the whole GPU suite (8 shards) with the hbp row chunks and the temporary-memory pool;
# memcheck of the new tests, racecheck of the chunk test; small plan builds (csr_overlap, hbp,
# dasp) before (HEAD) / after, where the pool's scope adds a wait and a trim.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run65.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for x in tcsparse tcsparse_old tcsparse_gpu_tests; do xz -dc .device-bin/$x.xz > $b/$x; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 420 $b/tcsparse_gpu_tests --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
cat $R/tests-*.txt | grep -E "PASSED|FAILED|tests ran|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
rm -f $R/tests-*.txt
echo "[$SECONDS s] sanitizers"
timeout 100 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='DeviceTest.FreedTemporariesAreKeptForReuseUntilReleased:PlanBuild.*:HbpGpuBuild.RowsCutIntoChunksGiveTheHostBuildsArrays' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; tail -4 $R/memcheck.txt
echo "[$SECONDS s] small builds"
for round in 1 2; do for v in old new; do
  bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
  timeout 60 $bin bench .exp/m/suitesparse/rajat01.mtx.gz gen:stencil2d:nx=1000,ny=1000 --methods csr_overlap,hbp,dasp --precisions fp64 --plan-builds 10 --runs 5 \
    --output $R/small-$v-$round.jsonl > /dev/null 2>&1; echo "small $v $round rc $?"
done; done
python3 - $R <<'PY'
import json, sys, collections
R = sys.argv[1]
t = collections.defaultdict(list)
for v in ("old", "new"):
    for rnd in (1, 2):
        for l in open(f"{R}/small-{v}-{rnd}.jsonl"):
            r = json.loads(l); t[(r["matrix"], r["method"], v)].append(round(r["plan_build_ms"], 3))
for (m, meth, v), x in sorted(t.items()):
    print(f"{m:24s} {meth:12s} {v}: plan_build_ms {x}")
PY
cd $R && tar czf $OUT/run65-records.tgz *.jsonl *.txt && rm -rf $R
echo "[$SECONDS s]"

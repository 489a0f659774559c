#!/usr/bin/env bash
# Run 256: the layout's two nonzero arrays allocated on a helper thread while the build's thread
# enqueues steps 1-3 (taken before step 4). Every hbp GPU test and PlanBuild.*, memcheck of the
# build tests; the five smaller hbp matrices in the order new old old new new old old new (five
# builds a pass), then the whole hbp suite old / new once; old: a3ee3b1.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run256.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="*hbp*:*Hbp*:PlanBuild.*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
echo "[$SECONDS s] memcheck"
timeout 100 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='HbpGpuBuild.CrowdedTablePositionsGiveTheHostOrder:HbpGpuBuild.EdgeShapes*:HbpGpuBuild.BothBuilds*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
M="gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=10 gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67 gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61 gen:rmat:scale=18,edge_factor=48,seed=63 gen:rmat:scale=19,edge_factor=48,seed=64"
i=0
for v in new old old new new old old new; do
  i=$((i+1)); bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
  timeout 60 $bin bench $M --methods hbp --precisions fp64,fp16 --plan-builds 5 --runs 5 \
    --output $R/small-$v-$i.jsonl > /dev/null 2>&1; echo "$v $i rc $? [$SECONDS s]"
done
for v in new old; do
  bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
  timeout 100 $bin bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 --plan-builds 3 --runs 10 \
    --output $R/hbp-$v-1.jsonl > /dev/null 2>&1; echo "hbp $v rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
R = sys.argv[1]
b = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/small-*.jsonl")):
    v = f.split("small-")[1].split("-")[0]
    for l in open(f):
        r = json.loads(l)
        b[(r["matrix"], r["precision"])][v].append((r["device_preprocess_ms"], r["median_ms"]))
print("matrix precision | old: median of passes, lowest (SpMV-times) | new | new/old")
for k, d in sorted(b.items()):
    o = [x[0] for x in d['old']]; n = [x[0] for x in d['new']]
    print(f"{k[0][:40]:40s} {k[1]} | {statistics.median(o):.3f} {min(o):.3f} ({min(d['old'])[0]/min(d['old'])[1]:.1f}) | {statistics.median(n):.3f} {min(n):.3f} ({min(d['new'])[0]/min(d['new'])[1]:.1f}) | {statistics.median(n)/statistics.median(o):.3f}")
h = collections.defaultdict(dict)
for v in ("old", "new"):
    for l in open(f"{R}/hbp-{v}-1.jsonl"):
        r = json.loads(l)
        h[(r["matrix"], r["precision"])][v] = (r["device_preprocess_ms"], r["median_ms"])
print("hbp suite: matrix precision | old build ms (SpMV-times) | new")
for k, d in sorted(h.items()):
    o, n = d["old"], d["new"]
    print(f"{k[0]:22s} {k[1]} | {o[0]:.2f} ({o[0]/o[1]:.1f}) | {n[0]:.2f} ({n[0]/n[1]:.1f})")
PY
cd $R && gzip *.jsonl tests-*.txt && tar czf $OUT/run256.tgz . && cp run256.log $OUT/
echo "[$SECONDS s]"

#!/usr/bin/env bash
# Run: the hash reorder inserting each run of slots with one home at once (warp_take_free): every
# hbp GPU test, memcheck and racecheck of the probe-cluster and chunk tests; the build before
# (old: the row chunks and pool) / after on the hbp suite, with reorder=sort as a variant (the
# reorder step of hash against sort).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run67.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for x in tcsparse tcsparse_old tcsparse_gpu_tests; do xz -dc .device-bin/$x.xz > $b/$x; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter="*hbp*:*Hbp*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
cat $R/tests-*.txt | grep -E "PASSED|FAILED|tests ran" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
rm -f $R/tests-*.txt
echo "[$SECONDS s] sanitizers"
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter='HbpGpuBuild.LongProbeClustersGiveTheHostOrder' --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $?"; tail -3 $R/$tool.txt
done
echo "[$SECONDS s] builds"
for round in 1 2; do for v in old new; do
  bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
  timeout 120 $bin bench --suite hbp --matrix-dir .exp/m --methods hbp --precisions fp64 --plan-builds 3 --runs 10 \
    --variant sort:reorder=sort --output $R/hbp-$v-$round.jsonl > /dev/null 2>&1; echo "hbp $v $round rc $? [$SECONDS s]"
done; done
python3 - $R <<'PY'
import json, sys, collections
R = sys.argv[1]
b = collections.defaultdict(lambda: collections.defaultdict(list)); sp = {}
for v in ("old", "new"):
    for rnd in (1, 2):
        for l in open(f"{R}/hbp-{v}-{rnd}.jsonl"):
            r = json.loads(l); lab = v + ("-" + r["variant"] if r.get("variant") else "")
            ph = r["details"].get("plan_phases_ms", {})
            b[r["matrix"]][lab].append((round(r["device_preprocess_ms"], 2), round(ph.get("reorder", 0), 2)))
            if not r.get("variant"): sp.setdefault(r["matrix"], r["median_ms"])
for m, d in b.items():
    s = sp[m]
    print(f"{m:22s} spmv {s:.4f} | " + " | ".join(f"{lab}: build {min(x[0] for x in xs):.2f} ({min(x[0] for x in xs)/s:.1f}x) reorder {min(x[1] for x in xs):.2f}" for lab, xs in sorted(d.items())))
PY
cd $R && tar czf $OUT/run67-records.tgz *.jsonl *.txt && rm -rf $R
echo "[$SECONDS s]"

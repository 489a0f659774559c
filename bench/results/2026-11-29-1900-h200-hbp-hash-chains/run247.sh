#!/usr/bin/env bash
# Run 247: the hash reorder as a counting sort (collisions chained in row order, no probing):
# every hbp GPU test, memcheck / racecheck / synccheck of the hash kernel's tests; the hbp suite
# before (old: 1dae5a4, linear probing) and after in fp64 and fp16, reorder=sort as a variant
# (the reorder step of hash against sort), two rounds in turns.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run247.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter="*hbp*:*Hbp*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
echo "[$SECONDS s] sanitizers"
F='HbpGpuBuild.CrowdedTablePositionsGiveTheHostOrder:HbpGpuBuild.EdgeShapes*'
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter="$F" --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -3
done
echo "[$SECONDS s] builds"
for round in 1 2; do for v in old new; do
  bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
  timeout 150 $bin bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 --plan-builds 3 --runs 10 \
    --variant sort:reorder=sort --output $R/hbp-$v-$round.jsonl > /dev/null 2>&1; echo "hbp $v $round rc $? [$SECONDS s]"
done; done
python3 - $R <<'PY'
import json, sys, collections
R = sys.argv[1]
b = collections.defaultdict(lambda: collections.defaultdict(list))
for v in ("old", "new"):
    for rnd in (1, 2):
        try: lines = open(f"{R}/hbp-{v}-{rnd}.jsonl").readlines()
        except OSError: continue
        for l in lines:
            r = json.loads(l)
            lab = v + ("-" + r["variant"] if r.get("variant") else "")
            ph = r["details"].get("plan_phases_ms", {})
            b[(r["matrix"], r["precision"])][lab].append((r["median_ms"], r["device_preprocess_ms"], ph.get("reorder", 0)))
print("matrix precision | spmv old new | build old new new-sort (ms) | reorder old-hash new-hash old-sort new-sort | sort/hash new")
for (m, p), d in sorted(b.items()):
    g = lambda lab, k: min(x[k] for x in d[lab]) if d.get(lab) else float("nan")
    print(f"{m:22s} {p} | {g('old',0):.4f} {g('new',0):.4f} | {g('old',1):.2f} {g('new',1):.2f} {g('new-sort',1):.2f} | "
          f"{g('old',2):.3f} {g('new',2):.3f} {g('old-sort',2):.3f} {g('new-sort',2):.3f} | {g('new-sort',2)/max(g('new',2),1e-9):.2f}")
PY
cd $R && gzip *.jsonl tests-*.txt && tar czf $OUT/run247.tgz . && cp run247.log $OUT/
echo "[$SECONDS s]"

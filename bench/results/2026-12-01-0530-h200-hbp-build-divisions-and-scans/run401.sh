#!/usr/bin/env bash
# Run 401: hbp's lane-group walk without the ballots of rounds past a group's last (a group of
# 1-3 rounds ran kUnroll = 4 ballots a step): HBP GPU tests (8 shards); the hbp suite, hbp alone,
# fp64 / fp16, b2f4e34's CLI (tcsparse_old) and this one alternating, two rounds.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run401.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin401; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 150 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "$? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/run401-gpu-tests.txt; rm $R/tests-*.txt; gzip $R/run401-gpu-tests.txt
echo "[$SECONDS s] bench"
for round in 1 2; do
  order="old new"; [ $round = 2 ] && order="new old"
  for which in $order; do
    [ $SECONDS -gt 200 ] && break
    bin=$b/tcsparse; [ $which = old ] && bin=$b/tcsparse_old
    timeout 80 $bin bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 \
      --runs 30 --output $R/run401-$which-$round.jsonl > /dev/null 2>&1
    echo "round $round $which rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, statistics, math
R = sys.argv[1]
t = {}
for f in sorted(glob.glob(f"{R}/run401-*-*.jsonl")):
    which = f.split("run401-")[1].split("-")[0]
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: print("error", f, r.get("matrix"), r.get("error")); continue
        if not r.get("check_passed", True): print("CHECK FAILED", f, r["matrix"], r["precision"])
        t.setdefault((r["matrix"], r["precision"]), {}).setdefault(which, []).append(r["median_ms"])
for p in ("fp64", "fp16"):
    ratios = []
    for (m, pp), d in sorted(t.items()):
        if pp != p or "old" not in d or "new" not in d: continue
        o, n = statistics.median(d["old"]), statistics.median(d["new"])
        ratios.append(o / n)
        print(f"{m[:22]:22s} {p} old {o*1e3:8.1f} us new {n*1e3:8.1f} us  old/new {o/n:.3f}x")
    print(p, "geomean old/new", round(math.exp(sum(map(math.log, ratios)) / len(ratios)), 4))
PY
cd $R && tar czf run401-records.tar.gz run401-*-*.jsonl && rm -f run401-*-*.jsonl

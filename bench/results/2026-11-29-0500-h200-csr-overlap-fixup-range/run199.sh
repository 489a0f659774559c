#!/usr/bin/env bash
# Run 199: the binaries of run 198 (tcsparse_old: commit 8b7edf8; tcsparse, tcsparse_gpu_tests:
# the fixup range and the first row offset loaded with the matrix).
# 1. the 68 GPU tests that run 198's shards did not reach before their time limit
#    (run199-tests-run-198-did-not-finish.txt), 16 shards; 2. synccheck of the merge-tile stress
#    test; 3. the default suite against cuSPARSE, every precision, old and new, two rounds;
# 4. plans from device CSR on the default suite, new binary, three rounds (5 builds a case).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
D=bench/results/2026-11-29-0500-h200-csr-overlap-fixup-range
exec > >(tee -a $OUT/run199.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F=$(tr '\n' ':' < $D/run199-tests-run-198-did-not-finish.txt)
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -E "^\[  FAILED  \]|Failure$|Expected|Which is" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 150 compute-sanitizer --tool synccheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.MergeTilesAcrossALongRow*' --gtest_brief=1 > $R/synccheck.txt 2>&1
echo "synccheck rc $? [$SECONDS s]"; grep -E "SUMMARY|PASSED|FAILED" $R/synccheck.txt | tail -3
SECONDS=0
for round in 1 2; do
  for v in old new; do
    bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
    timeout 100 $bin bench --suite default --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
      --runs 20 --output $R/default-$v-$round.jsonl > /dev/null 2>&1
    echo "default $v round $round rc $? [$SECONDS s]"
  done
done
for round in 1 2 3; do
  timeout 100 $b/tcsparse bench --suite default --methods csr_overlap --precisions fp64,fp32,fp16,bf16 \
    --from-device --plan-builds 5 --runs 10 --output $R/from-device-$round.jsonl > /dev/null 2>&1
  echo "from-device round $round rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, math, collections
R = sys.argv[1]
def load(path):
    t = {}
    for line in open(path):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", path, r["matrix"], r["precision"], r["method"])
        t[(r["matrix"], r["precision"], r["method"])] = r
    return t
speed = collections.defaultdict(list)
for name in sorted(glob.glob(f"{R}/default-*.jsonl")):
    v = name.split("-")[-2]
    t = load(name)
    for (m, p, me), r in t.items():
        if me == "csr_overlap":
            speed[(m, p, v)].append((t[(m, p, "cusparse")]["median_ms"] / r["median_ms"], r["nnz"], r.get("details", {}).get("partition")))
print("default suite, speedup over cuSPARSE, rounds, old -> new, matrices of 10 M nonzeros or more")
for (m, p, v), xs in sorted(speed.items()):
    if v != "old" or xs[0][1] < 1e7: continue
    new = speed[(m, p, "new")]
    print(f"{m:20s} {p:5s} {xs[0][2] or '':10s} {' '.join(f'{x[0]:.3f}' for x in xs)} -> {' '.join(f'{x[0]:.3f}' for x in new)}")
for v in ("old", "new"):
    for p in ("fp64", "fp32", "fp16", "bf16"):
        s = [x[0] for (m, pp, vv), xs in speed.items() if vv == v and pp == p for x in xs]
        big = [x[0] for (m, pp, vv), xs in speed.items() if vv == v and pp == p for x in xs if x[1] >= 1e7]
        print(f"{v} {p}: geomean {math.exp(sum(map(math.log, s)) / len(s)):.3f} over {len(s)}, lowest of >= 10 M nonzeros {min(big):.3f}")
print("plans from device CSR, matrices of 1 M nonzeros or more: build / fastest apply, the five highest a round")
for name in sorted(glob.glob(f"{R}/from-device-*.jsonl")):
    worst = []
    for line in open(name):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", r["matrix"], r["precision"])
        if r["nnz"] < 1e6: continue
        worst.append((round(r["plan_build_ms"] / r["median_ms"], 2), r["matrix"], r["precision"], round(r["plan_build_ms"], 3), r.get("details", {}).get("partition")))
    print(name.split("/")[-1], sorted(worst)[-5:])
PY
cd $OUT && tar czf r.tgz r && rm -rf r

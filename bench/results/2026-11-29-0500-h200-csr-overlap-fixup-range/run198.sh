#!/usr/bin/env bash
# Run 198: merge tiles with (a) the tile kernel loading a thread's first row offset with the
# matrix instead of after the gathers, (b) merge_fixup_kernel reading the structure before it
# waits for the tile kernel and summing a cut row's carries from the tile its first nonzero is in
# (loads independent, same order, same bits). Against the previous binary (tcsparse_old, commit
# 8b7edf8) in the same call.
# 1. GPU tests of csr_overlap and its conformance, promise and from-device cases (16 shards);
# 2. memcheck and racecheck of the merge-tile stress test; 3. the merge-tile matrices of the
# default suite, every precision, old and new alternating, three rounds; 4. the four real
# matrices that take merge tiles, old and new, two rounds; 5. Nsight Compute's kernel durations
# on rmat_20 fp64, old and new.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run198.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*CsrOverlapGpu*:*Conformance*csr_overlap*:*ApplyPromises*csr_overlap*:*FromDevice*csr_overlap*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]|Failure$|Expected|Which is" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
T='CsrOverlapGpu.MergeTilesAcrossALongRow*'
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter="$T" --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -4
done
SECONDS=0
M="gen:rmat:scale=20,edge_factor=16,seed=3 gen:random:rows=1000000,cols=1000000,dist=uniform,min=1,max=39,seed=4 gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=20000,exponent=2,seed=5 gen:rmat:scale=15,edge_factor=16,seed=13 gen:random:rows=100000,cols=100000,dist=power_law,min=1,max=5000,exponent=2,seed=14"
for round in 1 2 3; do
  for v in old new; do
    bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
    timeout 100 $bin bench $M --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
      --runs 30 --output $R/merge-$v-$round.jsonl > /dev/null 2>&1
    echo "merge $v round $round rc $? [$SECONDS s]"
  done
done
for round in 1 2; do
  for v in old new; do
    bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
    timeout 60 $bin bench .mx/suitesparse/*.mtx.gz --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
      --runs 50 --output $R/real-$v-$round.jsonl > /dev/null 2>&1
    echo "real $v round $round rc $? [$SECONDS s]"
  done
done
for v in old new; do
  bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
  timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum -k "regex:merge_" -c 8 \
    $bin bench gen:rmat:scale=20,edge_factor=16,seed=3 --methods csr_overlap --precisions fp64 --runs 1 --warmup-ms 0 \
    --output /tmp/n.jsonl > $R/ncu-$v.txt 2>&1
  echo "ncu $v rc $? [$SECONDS s]"
  grep -h -E "void|duration" $R/ncu-$v.txt | sed -e 's/(tcsparse::[^)]*)//g' -e 's/tcsparse:://g' | cut -c1-110 | tail -8
done
python3 - $R <<'PY'
import json, sys, glob, math, collections
R = sys.argv[1]
ratios = collections.defaultdict(list)  # (kind, matrix, precision, version) -> [speedup over cuSPARSE]
for name in sorted(glob.glob(f"{R}/*-*-*.jsonl")):
    kind, version, _ = name.split("/")[-1].split("-")
    t = {}
    for line in open(name):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", name, r["matrix"], r["precision"], r["method"])
        t[(r["matrix"], r["precision"], r["method"])] = r
    for (m, p, me), r in t.items():
        if me == "csr_overlap" and (m, p, "cusparse") in t:
            ratios[(kind, m, p, version)].append(t[(m, p, "cusparse")]["median_ms"] / r["median_ms"])
print("speedup over cuSPARSE, each round, old -> new (partition of new)")
for (kind, m, p, v), old in sorted(ratios.items()):
    if v != "old": continue
    new = ratios.get((kind, m, p, "new"), [])
    print(f"{kind:5s} {m[:44]:44s} {p:5s} {' '.join(f'{x:.3f}' for x in old)} -> {' '.join(f'{x:.3f}' for x in new)}")
for kind in ("merge", "real"):
    for v in ("old", "new"):
        s = [x for (k, m, p, vv), xs in ratios.items() if k == kind and vv == v for x in xs]
        if s: print(f"{kind} {v}: geomean {math.exp(sum(map(math.log, s)) / len(s)):.4f} over {len(s)}")
PY
cd $OUT && tar czf r.tgz r && rm -rf r

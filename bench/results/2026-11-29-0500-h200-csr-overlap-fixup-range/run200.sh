#!/usr/bin/env bash
# Run 200: run 199's code plus merge_blocks_per_sm=6 (a carveout for six tile blocks an SM: the
# fp64 / fp16 / bf16 tile kernels now take 40 / 32 registers, so six 256-thread blocks fit).
# 1. GPU tests of merge tiles (every blocks_per_sm in every precision) and memcheck of the stress
#    test; 2. the merge-tile matrices of the default suite with variants mb6 / mb7 / mb8, every
#    precision, three rounds; 3. the real matrices (SuiteSparse, the other real ones and 150 DLMC
#    weights) against cuSPARSE in fp64 and fp32, for issue 9's geomean over the default and real
#    suites.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run200.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*MergeTiles*'
pids=()
for s in $(seq 0 7); do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]|Failure$|Expected|Which is" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
timeout 100 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.MergeTilesAcrossALongRow*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
SECONDS=0
M="gen:rmat:scale=20,edge_factor=16,seed=3 gen:random:rows=1000000,cols=1000000,dist=uniform,min=1,max=39,seed=4 gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=20000,exponent=2,seed=5 gen:rmat:scale=15,edge_factor=16,seed=13 gen:random:rows=100000,cols=100000,dist=power_law,min=1,max=5000,exponent=2,seed=14"
for round in 1 2 3; do
  timeout 100 $b/tcsparse bench $M --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 --runs 30 \
    --variant mb6:merge_blocks_per_sm=6 --variant mb7:merge_blocks_per_sm=7 --variant mb8:merge_blocks_per_sm=8 \
    --output $R/blocks-$round.jsonl > /dev/null 2>&1
  echo "blocks round $round rc $? [$SECONDS s]"
done
timeout 300 $b/tcsparse bench .mx/all/suitesparse .mx/all/other .mx/dlmc --methods cusparse,csr_overlap --precisions fp64,fp32 \
  --plan-builds 1 --runs 10 --warmup-ms 2 --output $R/matrices.jsonl > /dev/null 2>&1
echo "matrices rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, math, collections
R = sys.argv[1]
gm = lambda s: math.exp(sum(map(math.log, s)) / len(s))
speed = collections.defaultdict(list)
for name in sorted(glob.glob(f"{R}/blocks-*.jsonl")):
    t = {}
    for line in open(name):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", name, r["matrix"], r["precision"], r.get("variant"))
        t[(r["matrix"], r["precision"], r["method"], r.get("variant", ""))] = r
    for (m, p, me, v), r in t.items():
        if me == "csr_overlap":
            speed[(m, p, v)].append(t[(m, p, "cusparse", "")]["median_ms"] / r["median_ms"])
print("speedup over cuSPARSE, three rounds: 5 blocks (auto) | mb6 | mb7 | mb8")
for (m, p, v), xs in sorted(speed.items()):
    if v: continue
    print(f"{m.split(':')[1][:30]:30s} {p:5s} " + " | ".join(" ".join(f"{x:.3f}" for x in speed[(m, p, w)]) for w in ("", "mb6", "mb7", "mb8")))
for w in ("", "mb6", "mb7", "mb8"):
    print(f"geomean {w or 'auto'}: " + " ".join(f"{p} {gm([x for (m, pp, v), xs in speed.items() if v == w and pp == p for x in xs]):.3f}" for p in ("fp64", "fp32", "fp16", "bf16")))
t = {}
for line in open(f"{R}/matrices.jsonl"):
    r = json.loads(line)
    if not r.get("check_passed", True): print("CHECK FAILED", r["matrix"], r["precision"], r["method"])
    t[(r["matrix"], r["precision"], r["method"])] = r
for p in ("fp64", "fp32"):
    s = [t[(m, pp, "cusparse")]["median_ms"] / r["median_ms"] for (m, pp, me), r in t.items() if me == "csr_overlap" and pp == p and (m, pp, "cusparse") in t]
    print(f"matrices {p}: {len(s)} geomean {gm(s):.3f} min {min(s):.3f}")
PY
cd $OUT && tar czf r.tgz r && rm -rf r

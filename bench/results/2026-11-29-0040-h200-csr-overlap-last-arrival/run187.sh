#!/usr/bin/env bash
# Run 187 (run 186 had a stale build): merge_carries=last_arrival as the default (the last of a cut row's tiles to finish,
# counted by an atomic, adds its parts; no fixup kernel), merge_carries=fixup as a variant.
# 1. GPU tests of csr_overlap, csr_full_overlap, the device CSR check, plans from device CSR and
# their conformance cases (16 shards); 2. memcheck, racecheck and synccheck of the last-arrival
# test; 3. the default suite against cuSPARSE, every precision, with --variant
# fx:merge_carries=fixup, three rounds; 4. the four real matrices that take merge tiles (the call
# carries them in .mx/suitesparse), the same way; 5. plans from device CSR on the default suite,
# one round; 6. Nsight Compute's duration of the merge kernels on rmat_20 fp64, both ways.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run187.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*DeviceCsrView*:*FromDevice*:*from_device*:*CsrOverlap*:*csr_overlap*:*FullOverlap*:*full_overlap*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 330 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]|Failure$|Expected|Which is" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
T='CsrOverlapGpu.MergeTilesAddingCutRows*:CsrOverlapGpu.MergeTilesAcrossALongRow*'
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool $b/tcsparse_gpu_tests --gtest_filter="$T" --gtest_brief=1 > $R/$tool.txt 2>&1
  echo "$tool rc $? [$SECONDS s]"; grep -E "SUMMARY|PASSED|FAILED" $R/$tool.txt | tail -4
done
SECONDS=0
for round in 1 2 3; do
  timeout 150 $b/tcsparse bench --suite default --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
    --runs 20 --variant fx:merge_carries=fixup --output $R/default-$round.jsonl > /dev/null 2>&1
  echo "default round $round rc $? [$SECONDS s]"
done
for round in 1 2; do
  timeout 100 $b/tcsparse bench .mx/suitesparse/*.mtx.gz --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
    --runs 50 --variant fx:merge_carries=fixup --output $R/real-$round.jsonl > $R/real-$round.txt 2>&1
  echo "real round $round rc $? [$SECONDS s]"
done
timeout 150 $b/tcsparse bench --suite default --methods csr_overlap --precisions fp64,fp32,fp16,bf16 \
  --from-device --plan-builds 5 --runs 10 --output $R/from-device.jsonl > /dev/null 2>&1
echo "from-device rc $? [$SECONDS s]"
for v in last_arrival fixup; do
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum -k "regex:merge_" -c 8 \
    $b/tcsparse bench gen:rmat:scale=20,edge_factor=16,seed=3 --methods csr_overlap --precisions fp64 --runs 1 --warmup-ms 0 \
    --param merge_carries=$v --output /tmp/n.jsonl > $R/ncu-$v.txt 2>&1
  echo "ncu $v rc $? [$SECONDS s]"
  grep -h -E "void|duration" $R/ncu-$v.txt | sed -e 's/(tcsparse::[^)]*)//g' -e 's/tcsparse:://g' | cut -c1-110 | tail -8
done
python3 - $R <<'PY'
import json, sys, glob, math, collections
R = sys.argv[1]
def load(path):
    t = {}
    for line in open(path):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", r["matrix"], r["precision"], r["method"], r.get("variant"))
        t[(r["matrix"], r["precision"], r["method"], r.get("variant", ""))] = r
    return t
for name in sorted(glob.glob(f"{R}/default-*.jsonl")) + sorted(glob.glob(f"{R}/real-*.jsonl")):
    t = load(name)
    print(f"## {name.split('/')[-1]}: merge-tile matrices, speedup over cuSPARSE: fixup -> last_arrival")
    for (m, p, me, v), r in sorted(t.items()):
        if me != "csr_overlap" or v or r.get("details", {}).get("partition") != "merge_path": continue
        c = t[(m, p, "cusparse", "")]["median_ms"]
        fx = t[(m, p, me, "fx")]
        print(f"{m:20s} {p:5s} nnz {r['nnz']:>9d} {c / fx['median_ms']:.3f} -> {c / r['median_ms']:.3f}")
    for p in ("fp64", "fp32", "fp16", "bf16"):
        s = [t[(m, pp, "cusparse", "")]["median_ms"] / r["median_ms"] for (m, pp, me, v), r in t.items() if me == "csr_overlap" and not v and pp == p]
        if s: print(f"geomean {p}: {math.exp(sum(map(math.log, s)) / len(s)):.3f} over {len(s)}")
print("## plans from device CSR, matrices of 1 M nonzeros or more (build / fastest apply)")
worst = []
for line in open(f"{R}/from-device.jsonl"):
    r = json.loads(line)
    if not r.get("check_passed", True): print("CHECK FAILED", r["matrix"], r["precision"])
    if r["nnz"] < 1e6: continue
    worst.append((r["plan_build_ms"] / r["median_ms"], r["matrix"], r["precision"], r.get("details", {}).get("partition")))
for w in sorted(worst)[-8:]: print(w)
PY
cd $OUT && tar czf r.tgz r && rm -rf r

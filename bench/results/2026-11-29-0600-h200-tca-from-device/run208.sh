#!/usr/bin/env bash
# Run 208: kernel=auto from host CSR at up to 16 columns counts the stored tiles by building the
# tile layout on the GPU from the uploaded CSR (from kTilesDeviceBuildMinNonzeros on; the host
# count below), keeping the layout where tiles are chosen and the upload where rows are.
# tcsparse_prev: commit b89be8c's code (the host count). 1. tca's GPU tests and its conformance,
# promise and from-device cases (16 shards); 2. decode plan builds from host CSR on the 8 LLM
# weights, n = 8 and 16, row-major, 3 builds each, prev and new.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run208.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='SpmmLayouts.Tca*:*FromDevice*tca*:*Conformance*tca*:*ApplyPromises*tca*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.70 0.90; do W="$W llm:$shape:s$s:uniform"; done
done
SECONDS=0
for v in prev new; do
  bin=$b/tcsparse; [ $v = prev ] && bin=$b/tcsparse_prev
  timeout 100 $bin bench $W --methods tca --precisions fp16 --spmm-n 8,16 --layout row_major \
    --runs 20 --plan-builds 3 --output $R/decode-$v.jsonl > /dev/null 2>&1
  echo "decode $v rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys
R = sys.argv[1]
t = {}
for v in ("prev", "new"):
    for line in open(f"{R}/decode-{v}.jsonl"):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", v, r["matrix"], r["n"])
        t[(r["matrix"], r["n"], v)] = r
print("matrix n: kernel prev/new; plan build from host CSR prev -> new (ms); SpMM ms prev / new")
for (m, n, v), r in sorted(t.items()):
    if v != "prev": continue
    d = t[(m, n, "new")]
    print(f"{m:28s} {n:3d} {r['details'].get('kernel')}/{d['details'].get('kernel')} "
          f"{r['plan_build_ms']:.2f} -> {d['plan_build_ms']:.2f}; {r['median_ms']:.4f} / {d['median_ms']:.4f}")
PY
cd $OUT && tar czf r.tgz r && rm -rf r

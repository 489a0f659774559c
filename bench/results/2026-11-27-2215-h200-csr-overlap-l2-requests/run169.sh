#!/usr/bin/env bash
# Run 169: run 168's code with partition=auto taking merge tiles for even rows of scattered
# columns (rows of 4-64 on average; row vectors before). 1. GPU tests of csr_overlap,
# csr_full_overlap, the device CSR check and plans from device CSR (12 shards); 2. the default
# suite against the previous binary (stop 38), alternated, twice; 3. uniform random rows of 4-12
# at 4 M and 16 M rows, merge tiles (auto) against row vectors (a variant); 4. plans from device
# CSR, once.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run169.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*DeviceCsrView*:*FromDevice*:*from_device*:*CsrOverlap*:*csr_overlap*:*FullOverlap*:*full_overlap*'
pids=()
for s in 0 1 2 3 4 5 6 7 8 9 10 11; do
  GTEST_TOTAL_SHARDS=12 GTEST_SHARD_INDEX=$s timeout 360 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
for round in 1 2; do
  for bin in tcsparse tcsparse-prev; do
    timeout 150 $b/$bin bench --suite default --matrix-dir .mx --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
      --runs 20 --output $R/default-$bin-$round.jsonl > /dev/null 2>&1
    echo "default $bin $round rc $? [$SECONDS s]"
  done
done
L="gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=41 gen:random:rows=16000000,cols=16000000,dist=uniform,min=4,max=12,seed=42"
timeout 200 $b/tcsparse bench --methods cusparse,csr_overlap --precisions fp64,fp32,fp16 --runs 10 $L \
  --variant rv:partition=row_vectors --output $R/large-scattered.jsonl > /dev/null 2>&1
echo "large rc $? [$SECONDS s]"
timeout 150 $b/tcsparse bench --suite default --matrix-dir .mx --methods csr_overlap --precisions fp64,fp32,fp16,bf16 \
  --from-device --plan-builds 5 --runs 10 --output $R/from-device-tcsparse-1.jsonl > /dev/null 2>&1
echo "from-device rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, os, glob
R = sys.argv[1]
def load(f):
    t = {}
    for line in open(f):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", f, r["matrix"], r["precision"], r["method"], r.get("variant"))
        t[(r["matrix"], r["precision"], r["method"], r.get("variant", ""))] = r
    return t
for f in sorted(glob.glob(R + "/default-tcsparse-[12].jsonl")) + [R + "/large-scattered.jsonl"]:
    t = load(f); print("##", os.path.basename(f))
    for (m, p, me, v), r in sorted(t.items()):
        if me != "csr_overlap" or r["nnz"] < 10_000_000: continue
        c = t[(m, p, "cusparse", "")]
        print(f'{m[:18]:18s} {p} {v:4s} {c["median_ms"]/r["median_ms"]:.3f} {r["details"].get("partition","?")} {r["median_ms"]*1000:.1f}us')
for f in sorted(glob.glob(R + "/from-device-*.jsonl")):
    t = load(f); print("##", os.path.basename(f))
    for (m, p, me, v), r in sorted(t.items()):
        if r["nnz"] < 1_000_000: continue
        print(f'{m[:18]:18s} {p} build {r["plan_build_ms"]:.3f} ms spmv {r["median_ms"]:.4f} ms ratio {r["plan_build_ms"]/r["median_ms"]:.2f} {r["details"].get("partition","?")}')
PY
gzip -f $R/*.jsonl $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

#!/usr/bin/env bash
# Run 163: partition=row_vectors (uncommitted change on 8b0dd9f). 1. GPU tests of csr_overlap,
# csr_full_overlap, the device CSR check and plans from device CSR, DASP's device build (the table
# kernels changed: totals now written by the tile scan) in 8 shards; 2. compute-sanitizer memcheck
# of the row-vector tests; 3. the default suite, cuSPARSE and csr_overlap, every precision, the
# new binary against the previous one (8b0dd9f) twice, alternated; the row-vector shape variants;
# three matrices of the large suite that auto gives row vectors.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run163.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*DeviceCsrView*:*FromDevice*:*from_device*:*CsrOverlap*:*csr_overlap*:*FullOverlap*:*full_overlap*'
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 400 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]" $R/tests-*.txt | sort -u | head -20
grep -h -c -E "\[       OK \] .*RowVector" $R/tests-*.txt | paste -sd+ | bc | sed 's/^/row-vector tests OK: /'
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.RowVectors*:CsrOverlapGpu.AutoTakesRowVectors*:AllSynthetic/CsrOverlapGpuOnCatalogue.RowVectorsAddInTheHostModelsOrder/*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
SECONDS=0
V="--variant v1:row_vector_size=1 --variant v2:row_vector_size=2 --variant v4:row_vector_size=4 --variant v8:row_vector_size=8 --variant v16:row_vector_size=16 --variant v32:row_vector_size=32 --variant r1s1:row_vector_rows=1,row_vector_steps=1 --variant r2s1:row_vector_rows=2,row_vector_steps=1 --variant r2s2:row_vector_rows=2,row_vector_steps=2 --variant r4s2:row_vector_rows=4,row_vector_steps=2 --variant r1s4:row_vector_rows=1,row_vector_steps=4 --variant r4s1:row_vector_rows=4,row_vector_steps=1"
for round in 1 2; do
  for bin in tcsparse tcsparse-prev; do
    timeout 150 $b/$bin bench --suite default --matrix-dir .mx --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
      --runs 20 --output $R/default-$bin-$round.jsonl > /dev/null 2>&1
    echo "default $bin $round rc $? [$SECONDS s]"
  done
done
timeout 240 $b/tcsparse bench --suite default --matrix-dir .mx --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
  --max-nnz 40000000 --runs 10 $V --output $R/variants.jsonl > /dev/null 2>&1
echo "variants rc $? [$SECONDS s]"
timeout 150 $b/tcsparse bench --methods cusparse,csr_overlap --precisions fp64,fp32 --runs 10 \
  gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=41 gen:short:rows=4000000,cols=4000000,seed=47 \
  gen:random:rows=16000000,cols=16000000,dist=uniform,min=4,max=12,seed=42 --output $R/large.jsonl > /dev/null 2>&1
echo "large rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, os, collections, glob
R = sys.argv[1]
def load(f):
    t = {}
    for line in open(f):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", f, r["matrix"], r["precision"], r["method"], r.get("variant"))
        t[(r["matrix"], r["precision"], r["method"], r.get("variant", ""))] = r
    return t
for f in sorted(glob.glob(R + "/default-*.jsonl")) + [R + "/large.jsonl"]:
    t = load(f); print("##", os.path.basename(f))
    for (m, p, me, v), r in sorted(t.items()):
        if me != "csr_overlap" or r["nnz"] < 10_000_000: continue
        c = t[(m, p, "cusparse", v)]
        print(f'{m[:18]:18s} {p} {c["median_ms"]/r["median_ms"]:.3f} {r["details"].get("partition","?")} share {r.get("bandwidth_share",0):.3f}')
PY
gzip -f $R/*.jsonl $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

#!/usr/bin/env bash
# Run 164: partition=row_vectors after run 163's fixes (fp32 sums folded every 64 trips, fp64
# shapes r2s1 / v32 r4s1, row vectors borrow misaligned arrays, tests). 1. GPU tests of
# csr_overlap, csr_full_overlap, the device CSR check and plans from device CSR (8 shards);
# 2. compute-sanitizer memcheck of the row-vector tests; 3. the default suite, cuSPARSE and
# csr_overlap, every precision, against the previous binary (8b0dd9f), twice, alternated; three
# large-suite matrices (uniform 4-12 at 4 M and 16 M rows, rows of 1-4 at 4 M) the same way, with
# two row/step variants; 4. Nsight Compute of the row-vector kernel on stencil3d_100 fp64.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run164.log) 2>&1
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
echo "row-vector tests OK: $(cat $R/tests-*.txt | grep -c -E '\[       OK \] .*RowVector')"
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 240 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.RowVectors*:CsrOverlapGpu.AutoTakesRowVectors*:AllSynthetic/CsrOverlapGpuOnCatalogue.RowVectorsAddInTheHostModelsOrder/*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
SECONDS=0
for round in 1 2; do
  for bin in tcsparse tcsparse-prev; do
    timeout 150 $b/$bin bench --suite default --matrix-dir .mx --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
      --runs 20 --output $R/default-$bin-$round.jsonl > /dev/null 2>&1
    echo "default $bin $round rc $? [$SECONDS s]"
  done
done
L="gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=41 gen:short:rows=4000000,cols=4000000,seed=47 gen:random:rows=16000000,cols=16000000,dist=uniform,min=4,max=12,seed=42"
for bin in tcsparse tcsparse-prev; do
  V=""; [ $bin = tcsparse ] && V="--variant r1s4:row_vector_rows=1,row_vector_steps=4 --variant r2s2:row_vector_rows=2,row_vector_steps=2"
  timeout 200 $b/$bin bench --methods cusparse,csr_overlap --precisions fp64,fp32 --runs 10 $L $V --output $R/large-$bin.jsonl > /dev/null 2>&1
  echo "large $bin rc $? [$SECONDS s]"
done
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum \
  -k regex:row_vector -c 3 $b/tcsparse bench --matrix-dir .mx gen:stencil3d:nx=100,ny=100,nz=100,seed=2 --methods csr_overlap --precisions fp64 --runs 1 --warmup-ms 0 --output /tmp/ncu.jsonl > $R/ncu-stencil3d-fp64.txt 2>&1
echo "ncu rc $? [$SECONDS s]"; grep -E "row_vector_kernel|duration|dram__|registers|warps_active|inst_executed" $R/ncu-stencil3d-fp64.txt | tail -8
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
for f in sorted(glob.glob(R + "/default-*.jsonl")) + sorted(glob.glob(R + "/large-*.jsonl")):
    t = load(f); print("##", os.path.basename(f))
    for (m, p, me, v), r in sorted(t.items()):
        if me != "csr_overlap" or r["nnz"] < 10_000_000: continue
        c = t[(m, p, "cusparse", "")]
        print(f'{m[:18]:18s} {p} {v:5s} {c["median_ms"]/r["median_ms"]:.3f} {r["details"].get("partition","?")} share {r.get("bandwidth_share",0):.3f}')
PY
gzip -f $R/*.jsonl $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

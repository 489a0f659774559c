#!/usr/bin/env bash
# Run 167: the changes of run 166 plus merge tiles with aligned loads and their rows' sums
# written from shared memory, merge_blocks_per_sm=auto 5, fp16 / bf16 long-row chunks two in
# flight (fp64 a nonzero at a time), row vectors in groups of 32 rows a warp.
# 1. GPU tests of csr_overlap, csr_full_overlap, the device CSR check and plans from device CSR
# (12 shards); 2. memcheck of the changed kernels' tests; 3. the default suite against the
# previous binary (stop 38), alternated, twice; variants (groups off, 8 / 7 / 3 tile blocks an
# SM); 4. plans from device CSR against it, twice; 5. the real matrices against it (fp64, fp32);
# 6. Nsight Compute request counts on rmat_20 / random_uniform_1m fp64.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run167.log) 2>&1
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
timeout 240 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.LongRow*:CsrOverlapGpu.RowVectorGroups*:CsrOverlapGpu.MergeTilesAcross*:CsrOverlapGpu.AutoTakes*:CsrOverlapGpu.ARowLonger*:AllSynthetic/CsrOverlapGpuOnCatalogue.MergeTiles*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
SECONDS=0
for round in 1 2; do
  for bin in tcsparse tcsparse-prev; do
    timeout 150 $b/$bin bench --suite default --matrix-dir .mx --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
      --runs 20 --output $R/default-$bin-$round.jsonl > /dev/null 2>&1
    echo "default $bin $round rc $? [$SECONDS s]"
  done
done
timeout 200 $b/tcsparse bench --suite default --matrix-dir .mx --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
  --runs 20 --variant groups_off:row_vector_groups=off --variant mb8:merge_blocks_per_sm=8 --variant mb7:merge_blocks_per_sm=7 \
  --variant mb3:merge_blocks_per_sm=3 --max-nnz 40000000 --output $R/variants.jsonl > /dev/null 2>&1
echo "variants rc $? [$SECONDS s]"
for round in 1 2; do
  for bin in tcsparse tcsparse-prev; do
    timeout 150 $b/$bin bench --suite default --matrix-dir .mx --methods csr_overlap --precisions fp64,fp32,fp16,bf16 \
      --from-device --plan-builds 5 --runs 10 --output $R/from-device-$bin-$round.jsonl > /dev/null 2>&1
    echo "from-device $bin $round rc $? [$SECONDS s]"
  done
done
for bin in tcsparse tcsparse-prev; do
  timeout 200 $b/$bin bench .mx/all .mx/dlmc --methods cusparse,csr_overlap --precisions fp64,fp32 --plan-builds 1 \
    --runs 10 --warmup-ms 2 --output $R/matrices-$bin.jsonl > /dev/null 2>&1
  echo "matrices $bin rc $? [$SECONDS s]"
done
RMAT=gen:rmat:scale=20,edge_factor=16,seed=3
UNI=gen:random:rows=1000000,cols=1000000,dist=uniform,min=1,max=39,seed=4
M="gpu__time_duration.sum,lts__t_requests.sum,lts__t_sectors.sum,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed,lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_write.sum,l1tex__t_sector_hit_rate.pct,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active"
for bin in tcsparse tcsparse-prev; do
  timeout 90 ncu --clock-control none --metrics $M -k "regex:csrmv|merge_tile_kernel|row_vector" -c 4 \
    $b/$bin bench --methods cusparse,csr_overlap --precisions fp64 --runs 1 --warmup-ms 0 --plan-builds 1 --output /tmp/n.jsonl $RMAT $UNI > $R/ncu-$bin.txt 2>&1
  echo "ncu $bin rc $? [$SECONDS s]"
done
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
for f in sorted(glob.glob(R + "/default-*.jsonl")) + [R + "/variants.jsonl"]:
    t = load(f); print("##", os.path.basename(f))
    for (m, p, me, v), r in sorted(t.items()):
        if me != "csr_overlap" or r["nnz"] < 10_000_000: continue
        c = t[(m, p, "cusparse", "")]
        print(f'{m[:18]:18s} {p} {v:10s} {c["median_ms"]/r["median_ms"]:.3f} {r["details"].get("partition","?")} {r["median_ms"]*1000:.1f}us')
for f in sorted(glob.glob(R + "/from-device-*.jsonl")):
    t = load(f); print("##", os.path.basename(f))
    for (m, p, me, v), r in sorted(t.items()):
        if r["nnz"] < 1_000_000: continue
        print(f'{m[:18]:18s} {p} build {r["plan_build_ms"]:.3f} ms spmv {r["median_ms"]:.4f} ms ratio {r["plan_build_ms"]/r["median_ms"]:.2f} {r["details"].get("partition","?")}')
import math
for f in sorted(glob.glob(R + "/matrices-*.jsonl")):
    t = load(f)
    for p in ("fp64", "fp32"):
        s = [t[(m, pp, "cusparse", "")]["median_ms"] / r["median_ms"] for (m, pp, me, v), r in t.items() if me == "csr_overlap" and pp == p and (m, pp, "cusparse", "") in t]
        print(os.path.basename(f), p, len(s), "geomean", round(math.exp(sum(map(math.log, s)) / len(s)), 3), "min", round(min(s), 3))
PY
grep -h -E "void|duration|requests|sectors|hit_rate|registers|warps_active" $R/ncu-*.txt | cut -c1-150 | head -80
gzip -f $R/*.jsonl $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

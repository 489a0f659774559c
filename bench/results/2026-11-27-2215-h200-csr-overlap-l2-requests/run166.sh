#!/usr/bin/env bash
# Run 166 (experiments): long-row pieces in 16-byte chunks, the scatter skipped for auto's merge
# tiles / row vectors, the merge tile kernel's carveout (merge_blocks_per_sm). 1. GPU tests of the
# changed paths (6 shards) and memcheck of the new tests; 2. merge_blocks_per_sm 3/5/7 on rmat_20
# and random_powerlaw_2m, every precision; row-vector shapes on random_uniform_1m; 3. the default
# suite against the previous binary (stop 38), alternated, twice; 4. plans from device CSR
# against it; 5. Nsight Compute L2 breakdowns on rmat_20 / random_uniform_1m fp64.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run166.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='CsrOverlapGpu.LongRow*:CsrOverlapGpu.MergeTiles*:CsrOverlapGpu.AutoTakes*:CsrOverlapGpu.ARowLonger*:CsrOverlapGpu.RepeatedApplies*:CsrOverlapGpu.AllThreeKernels*:CsrOverlapGpu.Stats*:CsrOverlapGpu.*Misaligned*:CsrOverlapGpu.*Borrow*:*FromDevice*:AllSynthetic/CsrOverlapGpuOnCatalogue.EveryPrecision*:AllSynthetic/CsrOverlapGpuOnCatalogue.DeviceTable*:AllSynthetic/CsrOverlapGpuOnCatalogue.MergeTiles*'
pids=()
for s in 0 1 2 3 4 5; do
  GTEST_TOTAL_SHARDS=6 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.LongRow*:CsrOverlapGpu.MergeTilesAcross*:CsrOverlapGpu.AutoTakes*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
SECONDS=0
RMAT=gen:rmat:scale=20,edge_factor=16,seed=3
PL=gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=20000,exponent=2,seed=5
UNI=gen:random:rows=1000000,cols=1000000,dist=uniform,min=1,max=39,seed=4
timeout 150 $b/tcsparse bench --methods cusparse,csr_overlap --runs 20 $RMAT $PL \
  --variant mb3:merge_blocks_per_sm=3 --variant mb5:merge_blocks_per_sm=5 --variant mb7:merge_blocks_per_sm=7 \
  --output $R/merge-carveout.jsonl > /dev/null 2>&1
echo "merge carveout rc $? [$SECONDS s]"
timeout 100 $b/tcsparse bench --methods cusparse,csr_overlap --precisions fp64,fp32 --runs 20 $UNI \
  --variant v8s4:row_vector_size=8,row_vector_rows=1,row_vector_steps=4 \
  --variant v32s2:row_vector_size=32,row_vector_rows=1,row_vector_steps=2 \
  --variant v16s2:row_vector_size=16,row_vector_rows=1,row_vector_steps=2 \
  --variant v8r2s4:row_vector_size=8,row_vector_rows=2,row_vector_steps=4 \
  --variant merge:partition=merge_path \
  --output $R/uniform-shapes.jsonl > /dev/null 2>&1
echo "uniform shapes rc $? [$SECONDS s]"
for round in 1 2; do
  for bin in tcsparse tcsparse-prev; do
    timeout 150 $b/$bin bench --suite default --matrix-dir .mx --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
      --runs 20 --output $R/default-$bin-$round.jsonl > /dev/null 2>&1
    echo "default $bin $round rc $? [$SECONDS s]"
  done
done
for round in 1 2; do
  for bin in tcsparse tcsparse-prev; do
    timeout 150 $b/$bin bench --suite default --matrix-dir .mx --methods csr_overlap --precisions fp64,fp32,fp16,bf16 \
      --from-device --plan-builds 5 --runs 10 --output $R/from-device-$bin-$round.jsonl > /dev/null 2>&1
    echo "from-device $bin $round rc $? [$SECONDS s]"
  done
done
M="breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,dram__bytes_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active"
for m in cusparse csr_overlap; do
  timeout 90 ncu --clock-control none --metrics $M -k "regex:csrmv|merge_tile_kernel|row_vector" -c 2 \
    $b/tcsparse bench --methods $m --precisions fp64 --runs 1 --warmup-ms 0 --plan-builds 1 --output /tmp/n.jsonl $RMAT $UNI > $R/ncu-$m.txt 2>&1
  echo "ncu $m rc $? [$SECONDS s]"
done
timeout 90 ncu --clock-control none --metrics $M -k "regex:merge_tile_kernel" -c 1 \
  $b/tcsparse bench --methods csr_overlap --precisions fp64 --runs 1 --warmup-ms 0 --plan-builds 1 --param merge_blocks_per_sm=3 --output /tmp/n.jsonl $RMAT > $R/ncu-mb3.txt 2>&1
echo "ncu mb3 rc $? [$SECONDS s]"
timeout 60 ncu --clock-control none --metrics lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors.sum,lts__t_requests.sum -k "regex:csrmv|merge_tile_kernel" -c 2 \
  $b/tcsparse bench --methods cusparse,csr_overlap --precisions fp64 --runs 1 --warmup-ms 0 --plan-builds 1 --output /tmp/n.jsonl $RMAT > $R/ncu-fabric.txt 2>&1
echo "ncu fabric rc $? [$SECONDS s]"
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
for f in sorted(glob.glob(R + "/merge-*.jsonl")) + sorted(glob.glob(R + "/uniform-*.jsonl")) + sorted(glob.glob(R + "/default-*.jsonl")):
    t = load(f); print("##", os.path.basename(f))
    for (m, p, me, v), r in sorted(t.items()):
        if me != "csr_overlap" or r["nnz"] < 10_000_000: continue
        c = t[(m, p, "cusparse", "")]
        print(f'{m[:18]:18s} {p} {v:6s} {c["median_ms"]/r["median_ms"]:.3f} {r["details"].get("partition","?")} {r["median_ms"]*1000:.1f}us')
for f in sorted(glob.glob(R + "/from-device-*.jsonl")):
    t = load(f); print("##", os.path.basename(f))
    for (m, p, me, v), r in sorted(t.items()):
        if r["nnz"] < 1_000_000: continue
        print(f'{m[:18]:18s} {p} build {r["plan_build_ms"]:.3f} ms spmv {r["median_ms"]:.4f} ms ratio {r["plan_build_ms"]/r["median_ms"]:.2f} {r["details"].get("partition","?")}')
PY
grep -h -E "void|duration|throughput|hit_rate|sectors|requests|registers|warps_active|dram" $R/ncu-*.txt | cut -c1-160 | head -150
gzip -f $R/*.jsonl $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

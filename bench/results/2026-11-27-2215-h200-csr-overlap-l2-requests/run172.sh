#!/usr/bin/env bash
# Run 172 (experiment): the tile kernel's registers bounded for its merge_blocks_per_sm
# (__launch_bounds__ minimum blocks; 6 added), so that 6 / 7 / 8 blocks an SM are resident, on
# the three merge-tile matrices; row vectors on pruned_16k in every precision. The merge-tile
# GPU tests and memcheck first.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run172.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in tcsparse tcsparse_gpu_tests; do xz -dc .device-bin/$f.xz > $b/$f; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 200 $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.MergeTiles*:AllSynthetic/CsrOverlapGpuOnCatalogue.MergeTiles*' --gtest_brief=1 > $R/gpu-tests.txt 2>&1
echo "tests rc $? [$SECONDS s]"; grep -E "^\[  (PASSED|FAILED)" $R/gpu-tests.txt
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.MergeTilesAcross*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -3
M3="gen:rmat:scale=20,edge_factor=16,seed=3 gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=20000,exponent=2,seed=5 gen:random:rows=1000000,cols=1000000,dist=uniform,min=1,max=39,seed=4"
for round in 1 2; do
  timeout 150 $b/tcsparse bench --methods cusparse,csr_overlap --runs 20 $M3 --variant mb6:merge_blocks_per_sm=6 \
    --variant mb7:merge_blocks_per_sm=7 --variant mb8:merge_blocks_per_sm=8 --output $R/blocks-$round.jsonl > /dev/null 2>&1
  echo "blocks $round rc $? [$SECONDS s]"
done
timeout 100 $b/tcsparse bench --methods cusparse,csr_overlap --runs 20 gen:pruned:rows=16384,cols=16384,sparsity=0.9,seed=9 \
  --variant v32s4:partition=row_vectors,row_vector_size=32,row_vector_rows=1,row_vector_steps=4 \
  --variant v32r2s2:partition=row_vectors,row_vector_size=32,row_vector_rows=2,row_vector_steps=2 \
  --variant v32r2s4:partition=row_vectors,row_vector_size=32,row_vector_rows=2,row_vector_steps=4 \
  --variant p8192:long_row_piece=8192 --output $R/pruned.jsonl > /dev/null 2>&1
echo "pruned rc $? [$SECONDS s]"
for n in 6 7 8; do
  timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed,local_load_requests:smsp__inst_executed_op_local_ld.sum \
    -k "regex:merge_tile_kernel" -c 1 $b/tcsparse bench --methods csr_overlap --precisions fp64 --runs 1 --warmup-ms 0 --plan-builds 1 \
    --param merge_blocks_per_sm=$n --output /tmp/n.jsonl gen:rmat:scale=20,edge_factor=16,seed=3 > $R/ncu-mb$n.txt 2>&1
  echo "ncu $n rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, os, glob, collections
R = sys.argv[1]
acc = collections.defaultdict(list)
for f in sorted(glob.glob(R + "/blocks-*.jsonl")) + [R + "/pruned.jsonl"]:
    t = {}
    for line in open(f):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", r["matrix"], r["precision"], r.get("variant"))
        t[(r["matrix"], r["precision"], r["method"], r.get("variant", ""))] = r
    for (m, p, me, v), r in t.items():
        if me == "csr_overlap": acc[(m[:20], p, v)].append(t[(m, p, "cusparse", "")]["median_ms"] / r["median_ms"])
for k in sorted(acc): print(f"{k[0]:20s} {k[1]} {k[2]:8s} " + " ".join(f"{x:.3f}" for x in acc[k]))
PY
grep -h -E "void|duration|registers|warps_active|hit_rate|tag_requests|local" $R/ncu-*.txt | cut -c1-120
gzip -f $R/*.jsonl $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

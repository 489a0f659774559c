#!/usr/bin/env bash
# Run 144: merge_path, block tiles of 256 x 4/5/7 and 128 x 5 items, and warp tiles (merge_tile=warp, blocks of 128 x 5/7, 256 x 5), against the rows partition; memcheck, default suite fp64/fp32/fp16, ncu.
# first measurement. 1. compute-sanitizer memcheck of the merge kernels on small generated
# matrices (empty rows, long rows, one row) through `bench` (its check against the reference);
# 2. the default suite, every precision, cuSPARSE and csr_overlap (defaults) with six merge
# variants (threads x items), two rounds; 3. ncu of the merge kernel (registers, occupancy).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run144.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse-merge.xz > $b/tcsparse; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
V="--variant b256x4:partition=merge_path,threads_per_block=256,merge_items=4 --variant b256x5:partition=merge_path,threads_per_block=256,merge_items=5 --variant b256x7:partition=merge_path,threads_per_block=256,merge_items=7 --variant b128x5:partition=merge_path,threads_per_block=128,merge_items=5 --variant w128x5:partition=merge_path,merge_tile=warp,threads_per_block=128,merge_items=5 --variant w128x7:partition=merge_path,merge_tile=warp,threads_per_block=128,merge_items=7 --variant w256x5:partition=merge_path,merge_tile=warp,threads_per_block=256,merge_items=5"
timeout 200 compute-sanitizer --tool memcheck --print-limit 20 $b/tcsparse bench --methods csr_overlap $V \
  --precisions fp64,fp16 --runs 2 --warmup-ms 0 --plan-builds 1 --output $R/memcheck.jsonl \
  gen:rmat:scale=12,edge_factor=8,seed=1 gen:long:rows=3,cols=100000,length=30000,seed=2 gen:long:rows=1,cols=50000,length=40000,seed=3 \
  gen:random:rows=5000,cols=3000,dist=power_law,min=0,max=2000,exponent=2,seed=4 gen:short:rows=20000,cols=20,seed=5 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY" $R/memcheck.txt | sort | uniq -c; grep -m5 -B2 -A10 "Invalid\|Error" $R/memcheck.txt | head -40
python3 -c "
import json; rs=[json.loads(l) for l in open('$R/memcheck.jsonl')]
print(len(rs), 'records', sum(1 for r in rs if r.get('check_passed')), 'passed')
for r in rs:
    if not r.get('check_passed'): print('FAILED', r['matrix'], r.get('variant'), r['precision'], r.get('error',''), r.get('max_error'))
"
SECONDS=0
for round in 1 2; do
  timeout 240 $b/tcsparse bench --suite default --matrix-dir .mx --methods cusparse,csr_overlap \
    $V \
    --precisions fp64,fp32,fp16 --plan-builds 1 --runs 20 --output $R/default-$round.jsonl > $R/default-$round.txt 2>&1
  echo "default $round rc $? [$SECONDS s]"; tail -3 $R/default-$round.txt
done
python3 - $R <<'PY'
import json, sys, os, collections, glob, math
R = sys.argv[1]
t = collections.defaultdict(dict)
labels = set()
for f in sorted(glob.glob(os.path.join(R, "default-*.jsonl"))):
    rnd = os.path.basename(f)[8:-6]
    for line in open(f):
        r = json.loads(line)
        lab = r["method"] + ("/" + r["variant"] if r.get("variant") else "")
        if not r.get("check_passed"): print("CHECK FAILED", rnd, r["matrix"], lab, r["precision"], r.get("error", ""))
        labels.add(lab)
        t[(r["matrix"][:20], r["precision"], r["nnz"])][(rnd, lab)] = r["median_ms"]
labs = sorted(l for l in labels if l != "cusparse")
print("speedup over cuSPARSE (same round), r1/r2:", labs)
geo = collections.defaultdict(list)
for (m, p, nnz), v in sorted(t.items(), key=lambda kv: (kv[0][1], -kv[0][2])):
    row = []
    for lab in labs:
        s = []
        for rnd in "12":
            c, o = v.get((rnd, "cusparse")), v.get((rnd, lab))
            x = c / o if c and o else float("nan"); s.append(x)
            if x == x: geo[(p, lab, "large" if nnz >= 10_000_000 else "small")].append(x)
        row.append("%.2f" % (sum(s) / 2))
    print(f"{m:20s} {p} {nnz:>9d}", " ".join(row))
for k, xs in sorted(geo.items()):
    print(k, "geomean %.3f min %.3f n %d" % (math.exp(sum(map(math.log, xs)) / len(xs)), min(xs), len(xs)))
PY
SECONDS=0
M="lts__t_sectors_srcunit_tex_op_read.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,smsp__inst_executed.sum"
for g in "gen:stencil3d:nx=100,ny=100,nz=100,seed=2" "gen:rmat:scale=20,edge_factor=16,seed=3"; do
  for cfg in block:256x5:fp64 warp:128x5:fp64 warp:128x5:fp32; do
    u=${cfg%%:*}; c=${cfg#*:}; t=${c%%x*}; rest=${c#*x}; i=${rest%%:*}; p=${cfg##*:}
    timeout 60 ncu --clock-control none --metrics $M -k 'regex:merge_(warp_)?tile_kernel' -c 1 \
      $b/tcsparse bench --methods csr_overlap --param partition=merge_path --param threads_per_block=$t --param merge_items=$i --param merge_tile=$u --precisions $p --runs 1 --warmup-ms 0 --plan-builds 1 --output /tmp/ncu.jsonl "$g" > $R/ncu-$(echo $g | cut -d: -f2)-$u-$t-$i-$p.txt 2>&1
    echo "ncu $g $cfg rc $? [$SECONDS s]"
  done
done
grep -h -E "merge_tile_kernel|merge_warp|lts__t_sectors|dram__|csrmv|direct_batch|long_row_kernel|registers_per|warps_active|duration|inst_executed" $R/ncu-*.txt | sed -E 's/ +/ /g' | cut -c1-160 | head -120
gzip -f $R/*.jsonl $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

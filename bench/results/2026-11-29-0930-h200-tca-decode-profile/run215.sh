#!/usr/bin/env bash
# Run 215: where tca's tiles kernel spends its time at decode widths (commit of this directory,
# binary built off the GPU machine): the SASS of the n = 16 row-major fp16 instantiation, and
# Nsight Compute (full set, source counters) of one launch on 4096 x 4096 and 11008 x 4096 at
# 70 % sparsity, n = 16; then tca against dense cuBLAS on the 8 weights at 70 %, n = 8 / 16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run215.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
SECONDS=0
cuobjdump -sass $b/tcsparse > $R/all.sass 2>&1
python3 - $R <<'PY'
import sys, re
R = sys.argv[1]
text = open(R + '/all.sass').read().split('\n')
out, keep = [], False
for line in text:
    if 'Function :' in line:
        keep = 'tca_tiles_kernel' in line
        if keep: out.append(line)
        continue
    if keep: out.append(line)
open(R + '/tiles.sass', 'w').write('\n'.join(out))
funcs = [l for l in out if 'Function :' in l]
print(len(funcs), 'tiles functions')
for f in funcs: print(f.strip()[:200])
PY
rm $R/all.sass
echo "sass [$SECONDS s]"
for w in llm:4096x4096:s0.70:uniform llm:11008x4096:s0.70:uniform; do
  tag=$(echo $w | cut -d: -f2)
  SECONDS=0
  timeout 150 ncu --clock-control none --kernel-name regex:tca_tiles_kernel --launch-skip 3 --launch-count 1 \
    --set full --import-source no -o $R/prof-$tag $b/tcsparse bench $w --methods tca --precisions fp16 \
    --spmm-n 16 --layout row_major --runs 5 --plan-builds 1 > $R/ncu-$tag.log 2>&1
  echo "ncu $tag rc $? [$SECONDS s]"; tail -3 $R/ncu-$tag.log
  ncu --import $R/prof-$tag.ncu-rep --page details --csv > $R/details-$tag.csv 2>&1
  ncu --import $R/prof-$tag.ncu-rep --page source --csv --print-source sass > $R/source-$tag.csv 2>&1
  ncu --import $R/prof-$tag.ncu-rep --page raw --csv > $R/raw-$tag.csv 2>&1
  echo "exports rc $? [$SECONDS s]"; wc -c $R/*-$tag.csv
done
grep -E '"(Duration|Registers Per Thread|Achieved Occupancy|Executed Ipc Active|Issue Slots Busy|Memory Throughput|DRAM Throughput|Warp Cycles Per Issued Instruction|Executed Instructions|No Eligible|Block Limit Shared Mem|Block Limit Registers|Waves Per SM)"' $R/details-*.csv | cut -c1-300
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do for d in uniform skewed; do W="$W llm:$shape:s0.70:$d"; done; done
SECONDS=0
timeout 120 $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 8,16 \
  --layout row_major --runs 20 --output $R/decode.jsonl > /dev/null 2>&1
echo "decode rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, collections
t = collections.defaultdict(dict)
for line in open(sys.argv[1] + '/decode.jsonl'):
    r = json.loads(line); t[(r['matrix'], r['n'])][r['method']] = r['median_ms']
for (m, n), v in sorted(t.items()):
    print('%-30s %2d dense %6.1f tca %6.1f us  %.3f' % (m, n, v['cublas_dense']*1e3, v['tca']*1e3, v['cublas_dense'] / v['tca']))
PY
cd $R && tar czf $OUT/run215-results.tgz . && cd - > /dev/null && rm -rf $R

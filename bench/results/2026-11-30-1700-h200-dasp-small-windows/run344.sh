#!/usr/bin/env bash
# Run 344: DASP's medium rows in windows of 128-1024 caller rows (medium_row_window) now that each
# window's rows are ordered by block width (medium_row_order=width, fill 0): a row-block of one
# width is padded to that width however small the window, and the warps writing a window's rows
# of all widths run close together. 1. the authors' code side by side (scripts/external-dasp.sh,
# the default set, fp64) with 905bc14's tcsparse; 2. uniform 4-12 at 4 M, cage11 x 35, the 2D
# stencil, R-MAT 20, fp64 and fp16, --variant wN:medium_row_window=N against the default (4096),
# two passes.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run344.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
M="gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=11
gen:replicate:file=.external/matrices/cage11.mtx.gz,target_nnz=19590270,seed=1
gen:stencil2d:nx=2000,ny=2000,seed=1 gen:rmat:scale=20,edge_factor=16,seed=3"
V=""; for w in 128 256 512 1024; do V="$V --variant w$w:medium_row_window=$w"; done
for pass in 1 2; do
  SECONDS=0
  timeout 200 $b/tcsparse bench $M --methods dasp,cusparse --precisions fp64,fp16 --runs 20 $V \
    --output $R/windows-$pass.jsonl > $R/windows-$pass.txt 2>&1
  echo "bench pass $pass rc $? [$SECONDS s]"; tail -1 $R/windows-$pass.txt
done
python3 - $R <<'PY'
import json, sys, statistics, collections, glob
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/windows-*.jsonl')):
    for l in open(f):
        r = json.loads(l)
        name = r.get('variant') or r['method']
        t[(r['matrix'][:44], r['precision'], name)].append(r['median_ms'] * 1000)
keys = sorted({(m, p) for m, p, _ in t})
names = ['cusparse', 'dasp', 'w128', 'w256', 'w512', 'w1024']
print('matrix precision ' + ' '.join(names) + '  (us, median of passes)')
for m, p in keys:
    print(m, p, ' '.join('%.1f' % statistics.median(t[(m, p, n)]) if t.get((m, p, n)) else '-' for n in names))
PY
cd $R && tar czf $OUT/run344-windows.tar.gz windows-*; cd - > /dev/null
SECONDS=0
timeout 240 bash scripts/external-dasp.sh run --generate default --precisions fp64 --cli $b/tcsparse \
  --matrix-dir .external/matrices --out $R/external --budget-s 180 > $R/external-run.txt 2>&1
echo "external rc $? [$SECONDS s]"; tail -3 $R/external-run.txt
cat $R/external/comparison.md 2>/dev/null
mkdir -p $OUT/run344-external && cp $R/external/* $OUT/run344-external/ 2>/dev/null
gzip -f $OUT/run344-external/*.jsonl 2>/dev/null; true

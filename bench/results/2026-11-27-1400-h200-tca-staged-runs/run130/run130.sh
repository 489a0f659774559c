#!/usr/bin/env bash
# Run 130: SASS of the tiles kernels (new: runs staged in shared memory; old: HEAD) and ncu stall
# reasons, per kernel and per SASS instruction, on decode 4096 x 4096 at 70 % (n = 16, row-major).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run130.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/tcsparse-old.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
for c in new old; do cuobjdump -sass .exp/cubin/$c.cubin | gzip > $R/$c.sass.gz; echo "sass $c rc $?"; done
M="smsp__inst_executed.sum,smsp__cycles_active.avg,sm__cycles_elapsed.avg,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
for bin in tcsparse tcsparse-old; do
  SECONDS=0
  timeout 120 ncu --clock-control none -k regex:tca_tiles -s 3 -c 1 --metrics "$M" $b/$bin bench llm:4096x4096:s0.70:uniform \
    --methods tca --param kernel=tiles --precisions fp16 --spmm-n 16 --layout row_major --runs 2 --plan-builds 1 > $R/stalls-$bin.txt 2>&1
  echo "stalls $bin rc $? [$SECONDS s]"
  SECONDS=0
  timeout 120 ncu --clock-control none -k regex:tca_tiles -s 3 -c 1 --section SourceCounters --section WarpStateStats --page source --print-source sass --csv $b/$bin bench llm:4096x4096:s0.70:uniform \
    --methods tca --param kernel=tiles --precisions fp16 --spmm-n 16 --layout row_major --runs 2 --plan-builds 1 > $R/source-$bin.csv 2>&1
  echo "source $bin rc $? [$SECONDS s]"; head -c 600 $R/source-$bin.csv; echo
done
grep -E "inst_executed|cycles|stalled" $R/stalls-*.txt | awk '$NF+0 > 0.05 || /inst|cycles/' | head -80
gzip $R/*.csv
cd $OUT && tar czf r.tgz r && rm -rf r

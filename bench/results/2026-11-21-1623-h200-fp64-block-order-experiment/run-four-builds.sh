#!/bin/bash
cd "$(dirname "$0")/.."
export TCSPARSE_MATRIX_DIR=$PWD/.matrices
B=.device-bin
specs="gen:stencil2d:nx=2000,ny=2000,seed=1 gen:stencil3d:nx=100,ny=100,nz=100,seed=2 gen:banded:n=2000000,bandwidth=5,seed=6 gen:pruned:rows=16384,cols=16384,sparsity=0.9,seed=9"
mkdir -p $OUT/r
for round in 1 2; do
i=0
for spec in $specs; do
  i=$((i+1))
  for v in a tcsparse c d; do
    bin=$B/tcsparse-$v; [[ $v == tcsparse ]] && bin=$B/tcsparse
    timeout 40 $bin bench "$spec" --methods cusparse,dasp --precisions fp64 --runs 50 -o $OUT/r/$v-$i-$round.jsonl >/dev/null 2>>$OUT/exp.log
  done
done
done
cd $OUT && tar czf r.tgz r && rm -rf r

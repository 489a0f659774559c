#!/usr/bin/env bash
# Run 224: run 223's chunk widths again, now with kernel=tiles (run 223 forgot it and its chunk
# variants were refused): the 8 LLM weights at 70 and 90 %, n = 8 / 16 / 32 / 64, row-major,
# tca (automatic chunks) against chunks of 3 .. 8 segments (768 .. 2048 columns) and dense
# cuBLAS, two rounds. Same binary as run 223.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run224.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
W=""
for shape in 4096x4096 11008x4096 4096x11008 14336x4096; do
  for s in 0.70 0.90; do for d in uniform skewed; do W="$W llm:$shape:s$s:$d"; done; done
done
SECONDS=0
V=""
for c in 768 1024 1280 1536 1792 2048; do V="$V --variant c$c:kernel=tiles,chunk_columns=$c"; done
for round in 1 2; do
  timeout 280 $b/tcsparse bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 8,16,32,64 \
    --layout row_major --runs 20 --variant tiles:kernel=tiles $V --output $R/chunks-$round.jsonl > /dev/null 2>&1
  echo "round $round rc $? [$SECONDS s]"
done
python3 bench/results/2026-11-29-1130-h200-tca-wave-chunks/summarize_chunks.py $R
cd $R && tar czf $OUT/run224-results.tgz . && cd - > /dev/null && rm -rf $R

#!/usr/bin/env bash
# Run 393: where the hbp GPU build of the 24 M-row band goes (fp16: 3 column blocks, fp64: 10):
# each build kernel's duration by ncu (one build, one apply), against the build's phases; then the
# band's builds, five a plan, fp16 / fp64, as this machine's baseline.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run393.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin393; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
M=gen:banded:n=24000000,bandwidth=1,seed=68
for p in fp16 fp64; do
  timeout 200 ncu --metrics gpu__time_duration.sum --csv --print-units base --launch-count 120 \
    $b/tcsparse bench $M --methods hbp --precisions $p --plan-builds 1 --runs 1 \
    --output $R/run393-ncu-$p.jsonl > $R/run393-ncu-$p.csv 2> $R/ncu-$p.err; echo "ncu $p rc $? [$SECONDS s]"
  tail -2 $R/ncu-$p.err
done
timeout 200 $b/tcsparse bench $M gen:banded:n=8000000,bandwidth=1,seed=68 --methods hbp --precisions fp16,fp64 --plan-builds 5 --runs 20 \
  --output $R/run393-builds.jsonl > /dev/null 2>&1; echo "builds rc $? [$SECONDS s]"
# (the log's summary read the csv's comma-grouped numbers as zeros; README.md has them read again)

#!/usr/bin/env bash
# Run 117: the measured "auto" on the real SuiteSparse matrices (SpMV, every precision) against
# every SpMV method; then auto rule-only on the same cases.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run117.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-cli/tcsparse.xz > $b/tcsparse; chmod +x $b/tcsparse
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 400 $b/tcsparse bench .mx/ss --methods cusparse,cusparse_alg2,dasp,csr_overlap,hbp,auto \
  --precisions fp64,fp32,fp16,bf16 --runs 10 --plan-builds 1 --output $R/ss-all.jsonl > $R/ss-all.txt 2>&1
echo "suitesparse all rc $? [$SECONDS s]"
SECONDS=0
timeout 150 $b/tcsparse bench .mx/ss --methods auto --auto-measure false \
  --precisions fp64,fp32,fp16,bf16 --runs 10 --plan-builds 1 --output $R/ss-auto-rule.jsonl > /dev/null 2>&1
echo "suitesparse auto rule-only rc $? [$SECONDS s]"
ls $R
python3 .exp/now/summarize.py $R/ss-all.jsonl $R/ss-auto-rule.jsonl > $R/ss-summary.txt
grep "<--" $R/ss-summary.txt | head -30; tail -8 $R/ss-summary.txt
gzip -f $R/*.jsonl
tar -C $OUT -czf $OUT/r.tar.gz r && rm -rf $R

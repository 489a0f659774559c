#!/usr/bin/env bash
# Run 116: the measured "auto" on the real DLMC matrices at 90 % sparsity (rn50 and transformer):
# SpMV and SpMM (n = 16 and 256) in fp32 and fp64 against every method that takes them (run 115 wrote them over with its fp16 run); SpMM
# fp16 is run 115's; then auto rule-only on the same cases.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run116.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-cli/tcsparse.xz > $b/tcsparse; chmod +x $b/tcsparse
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 280 $b/tcsparse bench .mx/dlmc09 --spmm-n 16,256 \
  --methods cusparse,cusparse_alg2,cusparse_alg3,cublas_dense,dasp,csr_overlap,auto \
  --precisions fp32,fp64 --runs 10 --plan-builds 1 --output $R/dlmc-all.jsonl > $R/dlmc-all.txt 2>&1
echo "dlmc fp32/fp64 all rc $? [$SECONDS s]"
SECONDS=0
timeout 120 $b/tcsparse bench .mx/dlmc09 --spmm-n 16,256 --methods auto --auto-measure false \
  --precisions fp32,fp64 --runs 10 --plan-builds 1 --output $R/dlmc-auto-rule.jsonl > /dev/null 2>&1
echo "dlmc auto rule-only rc $? [$SECONDS s]"
ls $R
python3 .exp/now/summarize.py <(cat $R/dlmc-all*.jsonl) $R/dlmc-auto-rule.jsonl > $R/dlmc-summary.txt
grep "<--" $R/dlmc-summary.txt | head -30; tail -8 $R/dlmc-summary.txt
gzip -f $R/*.jsonl
tar -C $OUT -czf $OUT/r.tar.gz r && rm -rf $R

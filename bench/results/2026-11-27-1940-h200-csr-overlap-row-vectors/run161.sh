#!/usr/bin/env bash
# Run 161: experiment. CSR-vector kernels that read global memory directly with several rows of a
# vector in flight (.exp/k1/rowvec.cu), against cuSPARSE in the same process; then tcsparse's
# csr_overlap and cuSPARSE on the same matrices through the CLI.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run161.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/rowvec.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 300 $b/rowvec .mx > $R/rowvec.txt 2>&1; echo "rowvec rc $? [$SECONDS s]"
cat $R/rowvec.txt
SECONDS=0
timeout 150 $b/tcsparse bench --suite default --matrix-dir .mx --methods cusparse,csr_overlap --precisions fp64,fp32 \
  --max-nnz 40000000 --runs 20 --output $R/bench.jsonl > $R/bench.txt 2>&1
echo "bench rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, os
t = {}
for line in open(os.path.join(sys.argv[1], "bench.jsonl")):
    r = json.loads(line); t[(r["matrix"], r["precision"], r["method"])] = r
for (m, p, me), r in sorted(t.items()):
    if me != "csr_overlap" or r["nnz"] < 10_000_000: continue
    c = t[(m, p, "cusparse")]
    print(f'{m:20s} {p} csr_overlap {r["median_ms"]*1e3:8.2f} us cusparse {c["median_ms"]*1e3:8.2f} us  {c["median_ms"]/r["median_ms"]:.3f}x  share {r["bandwidth_share"]:.3f}')
PY
gzip -f $R/*.jsonl $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

#!/usr/bin/env bash
# Run 380: bench records list every build's device_preprocess_ms (details.device_preprocess_builds_ms):
# the rajat01 replica, hbp, dasp and cusparse, fp64 and fp16, 5 builds.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r380; mkdir -p $R
exec > >(tee -a $OUT/run380.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 100 $b/tcsparse bench gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=10 \
  --methods hbp,dasp,cusparse --precisions fp64,fp16 --plan-builds 5 --runs 20 --output $R/builds.jsonl > /dev/null 2>&1
echo "bench rc $?"
python3 - $R/builds.jsonl <<'PY'
import json, sys, statistics
for l in open(sys.argv[1]):
    r = json.loads(l)
    b = r["details"].get("device_preprocess_builds_ms", [])
    print(r["method"], r["precision"], "device_preprocess_ms", round(r["device_preprocess_ms"], 3),
          "builds", [round(x, 3) for x in b],
          "median / SpMV", round(statistics.median(b) / r["median_ms"], 1) if b else None)
PY
cp $R/builds.jsonl $OUT/run380-builds.jsonl

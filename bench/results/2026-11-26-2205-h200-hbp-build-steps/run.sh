#!/usr/bin/env bash
# Run G: steps 1-2 of the hbp GPU build a lane a short row: every hbp GPU test
# (conformance and apply promises of every hbp product included), and the hbp suite's builds.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run59.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for x in tcsparse tcsparse_gpu_tests; do xz -dc .device-bin/$x.xz > $b/$x; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter='*hbp*:*Hbp*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
cat $R/tests-*.txt | grep -E "PASSED|FAILED|tests ran" | sort | uniq -c
grep -h -A10 Failure $R/tests-*.txt | head -30
grep -h 'info \] rmat 20' $R/tests-*.txt
rm -f $R/tests-*.txt
echo "[$SECONDS s] memcheck"
timeout 240 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='HbpGpuBuild.*:-*Real*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; tail -4 $R/memcheck.txt
echo "[$SECONDS s] plan builds"
timeout 150 $b/tcsparse bench --suite hbp --matrix-dir .exp/m --methods hbp --precisions fp64 --plan-builds 3 --runs 10 \
  --output $R/build-phases.jsonl > $R/build-phases.txt 2>&1; echo "bench rc $? [$SECONDS s]"
python3 - $R/build-phases.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line); ph = r["details"].get("plan_phases_ms", {})
    print(f'{r["matrix"]:22s} dev {r["device_preprocess_ms"]:7.2f} ms = {r["device_preprocess_ms"]/r["median_ms"]:5.1f} SpMV |',
          " ".join(f"{k} {v:.2f}" for k, v in ph.items()))
PY
gzip -f $R/*.jsonl
echo "[$SECONDS s]"

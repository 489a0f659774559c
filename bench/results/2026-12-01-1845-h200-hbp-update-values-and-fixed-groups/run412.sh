#!/usr/bin/env bash
# Run 412: the GPU tests of this build (update_values=on, fixed_group_share) over HBP, csr_overlap,
# the plan builds, the device algorithms, the conformance suite and the automatic choice, in 16
# shards; then the hbp suite with update_values=on beside the default (device bytes, the time of
# one update_values) and cuSPARSE, fp64 and fp16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run412.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 260 $b/tcsparse_gpu_tests --gtest_brief=1 \
    --gtest_filter='*Hbp*:*hbp*:CsrOverlap*:CsrFullOverlap*:DeviceAlgorithms*:PlanBuild*:*Conformance*:*AutoPlan*:*AutoChoice*' \
    > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo "[$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
(cd $R && cat tests-*.txt | gzip > run412-gpu-tests.txt.gz && rm tests-*.txt)
timeout 250 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp,cusparse --precisions fp64,fp16 \
  --runs 20 --plan-builds 1 --variant upd:update_values=on --output $R/run412-update.jsonl > $R/bench.txt 2>&1
echo "bench rc $? [$SECONDS s]"; tail -3 $R/bench.txt
python3 - $R <<'PY'
import json, sys, collections
t = collections.defaultdict(dict)
for l in open(sys.argv[1] + "/run412-update.jsonl"):
    r = json.loads(l)
    if "median_ms" not in r: continue
    d = r.get("details", {}); vb = 8 if r["precision"] == "fp64" else 2
    csr = (r["rows"] + 1) * 4 + r["nnz"] * (4 + vb)
    t[(r["precision"], r["matrix"])][r.get("variant") or r["method"]] = (
        r["median_ms"] * 1e3, r.get("device_bytes", d.get("device_bytes", 0)) / csr, d.get("update_values_ms", float("nan")) * 1e3)
for k, by in sorted(t.items()):
    print(k[0], f"{k[1]:22s}", "  ".join(f"{lab} {v[0]:8.1f}us {v[1]:5.2f}xcsr upd {v[2]:7.1f}us" for lab, v in sorted(by.items())))
PY
cd $R && gzip -f *.jsonl && echo "[$SECONDS s]"

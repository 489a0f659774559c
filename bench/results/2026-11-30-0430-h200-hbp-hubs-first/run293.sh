#!/usr/bin/env bash
# Run 293 (the final build): column_order=auto estimates the concentration from the columns of a
# row sample (about 2^21 nonzeros) and counts every column only where it takes hubs_first. The
# hbp suite, hbp (auto and column_order=caller) alone, builds median of 3, fp64 and fp16; then the
# GPU tests of DASP, HBP, the plan builds, the conformance suite and the automatic choice.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run293.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
timeout 300 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 \
  --plan-builds 3 --runs 20 --variant caller:column_order=caller --output $R/run293-hbp-builds.jsonl > /dev/null 2>&1; echo "bench rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob
R = sys.argv[1]
rec = [json.loads(l) for f in glob.glob(f"{R}/run293-*.jsonl") for l in open(f)]
t = {(r["matrix"], r["precision"], r.get("variant") or "auto"): r for r in rec if "median_ms" in r}
print("checks failed:", [k for k, r in t.items() if not r.get("check_passed", True)])
for p in ("fp64", "fp16"):
    for m in sorted({k[0] for k in t if k[1] == p}):
        a, c = t[(m, p, "auto")], t[(m, p, "caller")]
        ph = a["details"].get("plan_phases_ms", {})
        print(f"{m[:22]:22s} {p} nnz {a['nnz']:>10} {a['details'].get('column_order'):10s} conc {a['details'].get('column_count_concentration', float('nan')):7.2f} spmv {a['median_ms']*1e3:8.1f} / {c['median_ms']*1e3:8.1f} us  build {a['device_preprocess_ms']:6.2f} / {c['device_preprocess_ms']:6.2f} ms = {a['device_preprocess_ms']/a['median_ms']:5.1f} / {c['device_preprocess_ms']/c['median_ms']:5.1f} SpMVs  sample {ph.get('column_sample', 0):.2f} order {ph.get('column_order', 0):.2f}")
PY
echo "[$SECONDS s] tests"
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter='*Dasp*:*dasp*:*Hbp*:*hbp*:PlanBuild.*:*Conformance*:*AutoChoice*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/run293-gpu-tests.txt; rm $R/tests-*.txt
echo "[$SECONDS s] memcheck"
timeout 100 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='HbpGpuBuild.HubsFirst*:HbpGpu.AutoColumnOrder*' --gtest_brief=1 > $R/run293-memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/run293-memcheck.txt | tail -3
cd $R && gzip *.jsonl run293-gpu-tests.txt && tar czf $OUT/run293.tgz run293* && cp run293.log $OUT/
echo "[$SECONDS s]"

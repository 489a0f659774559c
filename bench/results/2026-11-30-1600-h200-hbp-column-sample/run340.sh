#!/usr/bin/env bash
# Run 340: column_order=auto's sample summing its squares in the counting kernel (no CUB
# reductions) against run 337's binary (`prev`): the hbp suite's plan builds (hbp, fp64 and fp16,
# three builds a case, the binaries alternating), details.plan_phases_ms.column_sample; the GPU
# tests of HBP, the plan builds, the conformance suite and the automatic choice (8 shards) and
# memcheck on the tests that sample.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $R/run340.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*:PlanBuild.*:*Conformance*:*AutoChoice*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/run340-gpu-tests.txt; rm $R/tests-*.txt
echo "[$SECONDS s] memcheck"
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='HbpGpu.AutoColumnOrder*:HbpGpu.XReadHubsFirst*' > $R/run340-memcheck.txt 2>&1; echo "memcheck rc $?"; tail -3 $R/run340-memcheck.txt
echo "[$SECONDS s] builds"
for bin in tcsparse tcsparse_prev tcsparse tcsparse_prev; do
  timeout 150 $b/$bin bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 --plan-builds 3 --runs 10 \
    --output $R/run340-$bin.jsonl > /dev/null 2>&1; echo "$bin rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, statistics
R = sys.argv[1]
t = {}
for f in glob.glob(f"{R}/run340-*.jsonl"):
    binary = "new" if "run340-tcsparse.jsonl" in f else "prev"
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r or r["method"] != "hbp": continue
        t.setdefault((r["matrix"], r["precision"], binary), []).append(r)
for (m, p) in sorted({(k[0], k[1]) for k in t}):
    n, o = t.get((m, p, "new")), t.get((m, p, "prev"))
    if not n or not o: continue
    med = lambda rs, f: statistics.median(f(r) for r in rs)
    ph = lambda r: r["details"].get("plan_phases_ms", {}).get("column_sample", float("nan"))
    spmv = med(n, lambda r: r["median_ms"])
    print(f"{m[:22]:22s} {p} nnz {n[0]['nnz']:>10d} | build new {med(n, lambda r: r['device_preprocess_ms']):7.3f} ms ({med(n, lambda r: r['device_preprocess_ms'])/spmv:5.1f} SpMVs, sample {med(n, ph):.3f}) prev {med(o, lambda r: r['device_preprocess_ms']):7.3f} ms ({med(o, lambda r: r['device_preprocess_ms'])/med(o, lambda r: r['median_ms']):5.1f}, sample {med(o, ph):.3f})")
PY
cd $R && gzip -f *.jsonl run340-gpu-tests.txt && tar czf $OUT/run340.tgz run340* && cp run340.log $OUT/
echo "[$SECONDS s]"

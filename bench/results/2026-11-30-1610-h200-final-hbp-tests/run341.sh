#!/usr/bin/env bash
# Run 341: the session's final build (e9bf209): the GPU tests of HBP, the plan builds, the
# conformance suite and the automatic choice (8 shards), memcheck on the stripes test; then, for
# the record, fp16 and the band in one column block against auto's stripes (R-MAT 24 fp16: 2
# stripes; the 24 M-row band: 10 stripes in fp64, 3 in fp16).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $R/run341.log) 2>&1
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
cat $R/tests-*.txt > $R/run341-gpu-tests.txt; rm $R/tests-*.txt
timeout 60 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='HbpGpu.XReadHubsFirst*' > $R/run341-memcheck.txt 2>&1; echo "memcheck rc $?"; tail -2 $R/run341-memcheck.txt
echo "[$SECONDS s] one block"
timeout 60 $b/tcsparse bench gen:rmat:scale=24,edge_factor=16,seed=45 --methods hbp --precisions fp16 --runs 20 \
  --variant one:block_cols=16777216 --output $R/run341-one-block.jsonl > /dev/null 2>&1; echo "rmat24 rc $?"
timeout 60 $b/tcsparse bench gen:banded:n=24000000,bandwidth=1,seed=68 --methods hbp --precisions fp64,fp16 --runs 20 \
  --variant one:block_cols=24000000 --output $R/run341-one-block.jsonl > /dev/null 2>&1; echo "band rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys
R = sys.argv[1]
t = {}
for l in open(f"{R}/run341-one-block.jsonl"):
    r = json.loads(l)
    if "median_ms" in r: t[(r["matrix"], r["precision"], r.get("variant") or "auto")] = r
for (m, p, v), r in sorted(t.items()):
    a = t[(m, p, "auto")]
    print(f"{m[:40]:40s} {p} {v:5s} {r['median_ms']*1e3:8.1f} us block_cols {r['details'].get('block_cols')} ({a['median_ms']/r['median_ms']:.3f}x auto)")
PY
cd $R && gzip -f *.jsonl run341-gpu-tests.txt && tar czf $OUT/run341.tgz run341* && cp run341.log $OUT/
echo "[$SECONDS s]"

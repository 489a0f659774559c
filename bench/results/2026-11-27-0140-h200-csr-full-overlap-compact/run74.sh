#!/usr/bin/env bash
# Run 74: csr_full_overlap's compact stream (stream_format=auto -> compact) against csr: GPU tests,
# memcheck and racecheck of the new tests, default suite fp64 / fp32 with both formats.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run74.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/t; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3; do
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$s timeout 200 $b/t --gtest_filter="*FullOverlap*:*full_overlap*:*HostUpload*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
cat $R/tests-*.txt | grep -E "PASSED|FAILED|tests ran|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
rm -f $R/tests-*.txt
timeout 120 compute-sanitizer --tool memcheck $b/t --gtest_filter='CsrFullOverlapTest.*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; tail -3 $R/memcheck.txt
timeout 120 compute-sanitizer --tool racecheck $b/t --gtest_filter='CsrFullOverlapTest.CompactStream*' --gtest_brief=1 > $R/racecheck.txt 2>&1
echo "racecheck rc $?"; tail -3 $R/racecheck.txt
echo "[$SECONDS s]"
timeout 300 $b/tcsparse bench --suite default --methods csr_full_overlap --precisions fp64,fp32 \
  --variant csr:stream_format=csr --plan-builds 1 --runs 10 --output $R/compact.jsonl > $R/compact.txt 2>&1
echo "bench rc $? [$SECONDS s]"
tail -3 $R/compact.txt
python3 - $R/compact.jsonl <<'PY'
import json, sys, math, collections
rows = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    r = json.loads(line); d = r.get("details", {})
    label = r.get("variant") or "default"
    rows[(r["matrix"][:22], r["precision"], r["nnz"])][label] = (r["median_ms"], d.get("oneshot_over_arrays_copy", 0), d.get("oneshot_over_copy", 0), d.get("eq2_speedup", 0), d.get("streamed_bytes_per_apply", 0) / max(d.get("csr_bytes_per_apply", 1), 1), r.get("check_passed"))
print("matrix precision nnz | ms compact csr | over own copy compact csr | over copy compact | eq2 compact csr | streamed/csr bytes")
agg = collections.defaultdict(list)
for k, v in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][2])):
    c, s = v.get("default"), v.get("csr")
    if not c or not s: continue
    print(*k, "| %.3f %.3f | %.3f %.3f | %.3f | %.2f %.2f | %.3f" % (c[0], s[0], c[1], s[1], c[2], c[3], s[3], c[4]), "" if c[5] and s[5] else "CHECK FAILED")
    if k[2] >= 1_000_000:
        agg["compact over own copy"].append(c[1]); agg["csr over own copy"].append(s[1]); agg["compact over copy"].append(c[2])
        agg["eq2 compact"].append(c[3]); agg["eq2 csr"].append(s[3]); agg["time csr/compact"].append(s[0] / c[0])
for l, xs in agg.items():
    pos = [x for x in xs if x > 0]
    print(l, "n", len(xs), "positive", len(pos), "geomean(positive)", round(math.exp(sum(math.log(x) for x in pos) / max(len(pos), 1)), 3), "min", round(min(xs), 3), "max", round(max(xs), 3))
PY
gzip -f $R/*.jsonl
echo "[$SECONDS s]"

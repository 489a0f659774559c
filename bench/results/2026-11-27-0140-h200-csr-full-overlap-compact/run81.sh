#!/usr/bin/env bash
# Run 81: the final code of this change: the whole GPU suite (8 shards); memcheck of the
# csr_full_overlap and device-CSR validation tests; csr_full_overlap's compact stream (parallel
# image writes) against csr once more, fp64 / fp32, with its plan build times.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run81.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for x in tcsparse tcsparse_gpu_tests; do xz -dc .device-bin/$x.xz > $b/$x; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 450 $b/tcsparse_gpu_tests --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
cat $R/tests-*.txt | grep -E "PASSED|FAILED|tests ran|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
rm -f $R/tests-*.txt
echo "[$SECONDS s] memcheck"
timeout 120 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='CsrFullOverlapTest.*:DeviceCsrViewValidation.*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; tail -3 $R/memcheck.txt
echo "[$SECONDS s] bench"
timeout 120 $b/tcsparse bench --suite default --methods csr_full_overlap --precisions fp64,fp32 \
  --variant csr:stream_format=csr --plan-builds 1 --runs 10 --output $R/compact-final.jsonl > $R/compact-final.txt 2>&1
echo "bench rc $? [$SECONDS s]"
python3 - $R/compact-final.jsonl <<'PY'
import json, sys, math, collections
rows = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    r = json.loads(line); d = r["details"]
    rows[(r["matrix"][:20], r["precision"], r["nnz"])][r.get("variant") or "default"] = (r["median_ms"], d.get("oneshot_over_arrays_copy", 0), d.get("eq2_speedup", 0), r["plan_build_ms"], r.get("check_passed"))
agg = collections.defaultdict(list)
for k, v in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][2])):
    c, s = v.get("default"), v.get("csr")
    if not c or not s: continue
    print(*k, "| ms %.3f %.3f | own copy %.3f %.3f | eq2 %.2f %.2f | build ms %.0f %.0f" % (c[0], s[0], c[1], s[1], c[2], s[2], c[3], s[3]), "" if c[4] and s[4] else "CHECK FAILED")
    if k[2] >= 1_000_000:
        agg["time csr/compact"].append(s[0] / c[0]); agg["eq2 compact"].append(c[2]); agg["compact over own copy"].append(c[1])
for l, xs in agg.items():
    pos = [x for x in xs if x > 0]
    print(l, "n", len(xs), "geomean(positive)", round(math.exp(sum(math.log(x) for x in pos) / max(len(pos), 1)), 3), "min", round(min(xs), 3), "max", round(max(xs), 3))
PY
gzip -f $R/*.jsonl
echo "[$SECONDS s]"

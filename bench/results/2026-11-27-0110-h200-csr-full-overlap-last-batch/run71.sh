#!/usr/bin/env bash
# Run 71: csr_full_overlap copies chained in order (copy_order=in_order) against per stream and
# big_batches 2/4/8/16; the hbp chunk kernel a thread a chunk. GPU tests of both, memcheck.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run71.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/t; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/t --gtest_filter="*FullOverlap*:*full_overlap*:*HostUpload*:*hbp*:*Hbp*" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
cat $R/tests-*.txt | grep -E "PASSED|FAILED|tests ran|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
echo "[$SECONDS s]"
timeout 90 compute-sanitizer --tool memcheck $b/t --gtest_filter='CsrFullOverlapTest.InOrderCopiesHoldTheLinkOneAtATime:CsrFullOverlapTest.LimitsForceOneTwoAndManyBigBatches:HbpGpuBuild.RowsCutIntoChunksGiveTheHostBuildsArrays' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; tail -3 $R/memcheck.txt
echo "[$SECONDS s]"
timeout 330 $b/tcsparse bench --suite default --methods csr_full_overlap --precisions fp64,fp32 \
  --variant per:copy_order=per_stream --variant b4:big_batches=4 --variant b8:big_batches=8 \
  --variant b16:big_batches=16 --variant per8:copy_order=per_stream,big_batches=8 \
  --plan-builds 1 --runs 10 --output $R/copy-order.jsonl > $R/copy-order.txt 2>&1
echo "bench rc $? [$SECONDS s]"
tail -3 $R/copy-order.txt
python3 - $R/copy-order.jsonl <<'PY'
import json, sys, math, collections
rows = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    r = json.loads(line); d = r.get("details", {})
    label = r.get("variant") or "default"
    rows[(r["matrix"][:22], r["precision"], r["nnz"])][label] = (d.get("oneshot_over_copy", 0), d.get("eq2_speedup", 0), r.get("check_passed"))
labels = ["default", "per", "b4", "b8", "b16", "per8"]
print("matrix precision nnz | oneshot/copy " + " ".join(labels) + " | eq2 default b8")
agg = collections.defaultdict(list)
for k, v in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][2])):
    print(*k, "|", *[f"{v[l][0]:.3f}" if l in v else "-" for l in labels], "|",
          *[f"{v[l][1]:.2f}" if l in v else "-" for l in ("default", "b8")],
          "" if all(x[2] for x in v.values()) else "CHECK FAILED")
    if k[2] >= 1_000_000:
        for l in labels:
            if l in v: agg[l].append(v[l][0]); agg["eq2-" + l].append(v[l][1])
for l, xs in agg.items():
    print(l, "n", len(xs), "geomean", round(math.exp(sum(math.log(max(x, 1e-9)) for x in xs) / len(xs)), 3), "max", round(max(xs), 3))
PY
gzip -f $R/*.jsonl
rm -f $R/tests-*.txt
echo "[$SECONDS s]"

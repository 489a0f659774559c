#!/usr/bin/env bash
# Run 73: csr_full_overlap with a small last big batch (last_big_batch=auto) against equal ones,
# copies per stream, 4 big batches and register mode; one-shot over a copy of the own arrays.
# GPU tests of csr_full_overlap and the upload path; memcheck.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run73.log) 2>&1
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
timeout 90 compute-sanitizer --tool memcheck $b/t --gtest_filter='CsrFullOverlapTest.*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; tail -3 $R/memcheck.txt
echo "[$SECONDS s]"
timeout 400 $b/tcsparse bench --suite default --methods csr_full_overlap --precisions fp64,fp32 \
  --variant equal:last_big_batch=equal --variant per:copy_order=per_stream,last_big_batch=equal \
  --variant b4:big_batches=4 --variant reg:host_memory=register --variant again:big_batches=2 \
  --plan-builds 1 --runs 10 --output $R/last-batch.jsonl > $R/last-batch.txt 2>&1
echo "bench rc $? [$SECONDS s]"
tail -3 $R/last-batch.txt
python3 - $R/last-batch.jsonl <<'PY'
import json, sys, math, collections
rows = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    r = json.loads(line); d = r.get("details", {})
    label = r.get("variant") or "default"
    rows[(r["matrix"][:22], r["precision"], r["nnz"])][label] = (d.get("oneshot_over_arrays_copy", 0), d.get("oneshot_over_copy", 0), r["min_ms"] / max(d.get("arrays_copy_ms", 1e-9), 1e-9), r.get("check_passed"))
labels = ["default", "again", "equal", "per", "b4", "reg"]
print("matrix precision nnz | one-shot / own arrays' copy: " + " ".join(labels) + " | over fresh-buffer copy: default reg")
agg = collections.defaultdict(list)
for k, v in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][2])):
    print(*k, "|", *[f"{v[l][0]:.3f}" if l in v else "-" for l in labels], "|",
          *[f"{v[l][1]:.3f}" if l in v else "-" for l in ("default", "reg")],
          "" if all(x[3] for x in v.values()) else "CHECK FAILED")
    for l in labels:
        if l in v and k[2] >= 1_000_000: agg[l].append(v[l][0]); agg["min-" + l].append(v[l][2])
for l, xs in agg.items():
    print(l, "n", len(xs), "geomean", round(math.exp(sum(math.log(max(x, 1e-9)) for x in xs) / len(xs)), 3), "max", round(max(xs), 3))
PY
gzip -f $R/*.jsonl
echo "[$SECONDS s]"

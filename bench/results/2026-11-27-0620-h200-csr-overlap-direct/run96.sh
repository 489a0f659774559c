#!/usr/bin/env bash
# Run 96: csr_overlap copy=direct (a warp reads its batch straight into the products): GPU tests,
# memcheck of the new tests, then the default suite fp64 / fp32 against cuSPARSE and cp_async.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run96.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/t; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 400 $b/tcsparse bench --suite default --methods cusparse,csr_overlap --precisions fp64,fp32 \
  --variant direct:copy=direct \
  --variant direct1024:copy=direct,max_batch_size=1024,max_batch_rows=512 \
  --variant direct256t:copy=direct,threads_per_block=256 \
  --variant directrb:copy=direct,register_bound=on \
  --plan-builds 1 --runs 20 --output $R/direct.jsonl > $R/direct.txt 2>&1
echo "bench rc $? [$SECONDS s]"
python3 - $R/direct.jsonl <<'PY'
import json, sys, math, collections
t = collections.defaultdict(dict); det = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if not r.get("check_passed"): print("CHECK FAILED", r["matrix"], r["method"], r.get("variant")); continue
    label = r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else "")
    t[(r["matrix"][:20], r["precision"], r["nnz"])][label] = r["median_ms"]
    if r.get("variant") == "direct": det[(r["matrix"][:20], r["precision"])] = (r["details"].get("blocks_per_sm"), r["details"].get("batch_unit"), r.get("bandwidth_share"))
labels = ["csr_overlap", "csr_overlap[direct]", "csr_overlap[direct1024]", "csr_overlap[direct256t]", "csr_overlap[directrb]"]
print("matrix precision | speedup over cusparse: " + " ".join(l.replace("csr_overlap", "co") for l in labels))
agg = collections.defaultdict(list)
for k, v in sorted(t.items(), key=lambda kv: (kv[0][1], -kv[0][2])):
    if "cusparse" not in v: continue
    sp = [v["cusparse"] / v[l] if l in v else float("nan") for l in labels]
    print(*k[:2], "| %.4f |" % v["cusparse"], " ".join("%.3f" % x for x in sp), det.get(k[:2]))
    for l, x in zip(labels, sp):
        if x == x: agg[(k[1], "large" if k[2] >= 10_000_000 else "small", l)].append(x)
for key, xs in sorted(agg.items()):
    print(*key, "geomean %.3f min %.3f" % (math.exp(sum(map(math.log, xs)) / len(xs)), min(xs)))
PY
gzip -f $R/*.jsonl
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 240 $b/t --gtest_filter='*CsrOverlap*:*csr_overlap*:*FullOverlap*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
SECONDS=0
timeout 150 compute-sanitizer --tool memcheck $b/t --gtest_filter='CsrOverlapGpu.Direct*:AllSynthetic/CsrOverlapGpuOnCatalogue.DirectReadsMatch*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -5 $R/memcheck.txt

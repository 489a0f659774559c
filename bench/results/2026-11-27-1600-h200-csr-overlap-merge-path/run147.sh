#!/usr/bin/env bash
# Run 147 (final code): run 145 with the merge walk unrolled again (as in run 143), the previous binary (4aee443) in the from-device builds, and partition=merge_path on every matrix as a variant.
#  1. csr_overlap / csr_full_overlap GPU tests (8 shards), memcheck of the merge-path tests;
#  2. the default suite, every precision: cuSPARSE, csr_overlap (auto) and the rows partition
#     (variant rows:partition=rows, the previous default), two rounds;
#  3. the real matrices (SuiteSparse, other, DLMC), fp64 and fp32: the same three;
#  4. plans from device CSR on the default suite (fp64, fp32).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run147.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/tcsparse_gpu_tests.xz .device-bin/tcsparse-prev.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*CsrOverlap*:*csr_overlap*:*FullOverlap*:*full_overlap*'
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter="$F" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]" $R/tests-*.txt | sort -u | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -80
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='*Merge*:*CsrOverlapGpu.AutoTakes*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
SECONDS=0
for round in 1 2; do
  timeout 200 $b/tcsparse bench --suite default --matrix-dir .mx --methods cusparse,csr_overlap --variant rows:partition=rows --variant merge:partition=merge_path \
    --precisions fp64,fp32,fp16,bf16 --plan-builds 1 --runs 20 --output $R/default-$round.jsonl > $R/default-$round.txt 2>&1
  echo "default $round rc $? [$SECONDS s]"; tail -2 $R/default-$round.txt
done
timeout 400 $b/tcsparse bench .mx/all .mx/dlmc --methods cusparse,csr_overlap --variant rows:partition=rows \
  --precisions fp64,fp32 --plan-builds 1 --runs 10 --warmup-ms 2 --output $R/matrices.jsonl > $R/matrices.txt 2>&1
echo "matrices rc $? [$SECONDS s]"; tail -2 $R/matrices.txt
for round in 1 2; do
  for bin in tcsparse tcsparse-prev; do
    timeout 150 $b/$bin bench --suite default --matrix-dir .mx --methods csr_overlap --precisions fp64,fp32 \
      --from-device --plan-builds 5 --runs 10 --output $R/from-device-$bin-$round.jsonl > /dev/null 2>&1
    echo "from-device $bin $round rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, os, collections, glob, math
R = sys.argv[1]
def g(v): return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
def load(files):
    t = collections.defaultdict(dict)
    for f in files:
        rnd = os.path.basename(f)
        for line in open(f):
            r = json.loads(line)
            lab = r["method"] + ("/" + r["variant"] if r.get("variant") else "")
            if not r.get("check_passed"): print("CHECK FAILED", rnd, r["matrix"], lab, r["precision"], r.get("error", "")); continue
            part = (r.get("details") or {}).get("partition", "")
            t[(r["matrix"][-30:], r["precision"], r["nnz"], rnd)][lab] = (r["median_ms"], part)
    return t
t = load(sorted(glob.glob(os.path.join(R, "default-*.jsonl"))))
print("default suite: speedup over cuSPARSE, auto (partition) | rows")
geo = collections.defaultdict(list)
for (m, p, nnz, rnd), v in sorted(t.items(), key=lambda kv: (kv[0][1], -kv[0][2], kv[0][3])):
    if "cusparse" not in v: continue
    c = v["cusparse"][0]
    a, part = v.get("csr_overlap", (float("nan"), ""))
    ro = v.get("csr_overlap/rows", (float("nan"), ""))[0]
    geo[(p, "auto", nnz >= 10_000_000)].append(c / a); geo[(p, "rows", nnz >= 10_000_000)].append(c / ro)
    me = v.get("csr_overlap/merge", (float("nan"), ""))[0]
    geo[(p, "merge", nnz >= 10_000_000)].append(c / me)
    print(f"{m:20s} {p} {nnz:>9d} {rnd[:9]} auto {c/a:.3f} ({part}) rows {c/ro:.3f} merge {c/me:.3f}")
for k, xs in sorted(geo.items()): print(k, "geomean %.3f min %.3f n %d" % (g(xs), min(xs), len(xs)))
t = load([os.path.join(R, "matrices.jsonl")])
geo = collections.defaultdict(list); changed = []
for (m, p, nnz, rnd), v in t.items():
    if "cusparse" not in v or "csr_overlap" not in v or "csr_overlap/rows" not in v: continue
    c = v["cusparse"][0]; a, part = v["csr_overlap"]; ro = v["csr_overlap/rows"][0]
    geo[(p, "auto")].append(c / a); geo[(p, "rows")].append(c / ro)
    if part == "merge_path": changed.append((p, m, nnz, ro / a)); geo[(p, "merged-auto/rows")].append(ro / a)
print("matrices suite:")
for k, xs in sorted(geo.items()): print(k, "geomean %.3f min %.3f max %.3f n %d" % (g(xs), min(xs), max(xs), len(xs)))
for x in sorted(changed): print("merge", x[0], x[1], x[2], "auto over rows %.3f" % x[3])
print("plans from device CSR: build ms / SpMV-times, each round; prev vs new")
bb = collections.defaultdict(list)
for f in sorted(glob.glob(os.path.join(R, "from-device-*.jsonl"))):
    bin = "prev" if "prev" in f else "new"
    for line in open(f):
        r = json.loads(line)
        if r["nnz"] < 1_000_000 or not r.get("check_passed"): continue
        bb[(r["matrix"][:18], r["precision"], bin)].append((r["plan_build_ms"], r["median_ms"], r["details"].get("partition", "")))
for m, p in sorted({(m, p) for (m, p, _) in bb}):
    row = [" ".join("%.3f/%.2f" % (x[0], x[0] / x[1]) for x in bb[(m, p, bin)]) for bin in ["prev", "new"]]
    print(f"{m:18s} {p}  prev {row[0]}  new {row[1]} {bb[(m, p, 'new')][0][2] if bb[(m, p, 'new')] else ''}")
PY
gzip -f $R/*.jsonl $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r

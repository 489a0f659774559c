#!/usr/bin/env bash
# Run 289: hbp's column_order with its tests. GPU tests of HBP, the plan builds, the automatic
# choice and DASP's row orders (8 shards), memcheck of the new tests; then the rule's data:
# column_order=caller against hubs_first (explicit variants) and auto (the default, its choice and
# the column counts' concentration in details) on R-MAT graphs of 2^12 to 2^22 vertices and on
# the default and large suites, fp64 and fp16, hbp alone.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run289.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*:PlanBuild.*:*AutoChoice*:DaspGpu.*RowOrder*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/run289-gpu-tests.txt; rm $R/tests-*.txt
echo "[$SECONDS s] memcheck"
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests \
  --gtest_filter='HbpGpuBuild.HubsFirst*:HbpGpu.AutoColumnOrder*:HbpGpu.MemsetSpmvAndCombine*' --gtest_brief=1 > $R/run289-memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/run289-memcheck.txt | tail -3
echo "[$SECONDS s] bench"
V="--variant caller:column_order=caller --variant hubs:column_order=hubs_first"
G=""; for s in 12 14 16 17 20 22; do G="$G gen:rmat:scale=$s,edge_factor=16,seed=7$s"; done
timeout 120 $b/tcsparse bench $G gen:rmat:scale=16,edge_factor=4,seed=81 gen:rmat:scale=18,edge_factor=4,seed=82 \
  --methods hbp --precisions fp64,fp16 --plan-builds 1 --runs 20 $V --output $R/run289-rmat.jsonl > /dev/null 2>&1; echo "rmat rc $? [$SECONDS s]"
timeout 150 $b/tcsparse bench --suite default --matrix-dir .mx --methods hbp --precisions fp64,fp16 --plan-builds 1 --runs 20 $V \
  --output $R/run289-default.jsonl > /dev/null 2>&1; echo "default rc $? [$SECONDS s]"
timeout 200 $b/tcsparse bench --suite large --matrix-dir .mx --methods hbp --precisions fp64,fp16 --plan-builds 1 --runs 20 $V \
  --output $R/run289-large.jsonl > /dev/null 2>&1; echo "large rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, math
R = sys.argv[1]
rec = [json.loads(l) for f in sorted(glob.glob(f"{R}/run289-*.jsonl")) for l in open(f)]
t = {}
for r in rec:
    if "median_ms" not in r: continue
    t[(r["matrix"], r["precision"], r.get("variant") or "auto")] = r
print("checks failed:", [k for k, r in t.items() if not r.get("check_passed", True)])
worst = []
for p in ("fp64", "fp16"):
    for m in sorted({k[0] for k in t if k[1] == p}, key=lambda m: t[(m, p, "caller")]["nnz"] if (m, p, "caller") in t else 0):
        try: c, h, a = (t[(m, p, v)] for v in ("caller", "hubs", "auto"))
        except KeyError: continue
        d = a.get("details", {}); best = min(c["median_ms"], h["median_ms"])
        chosen = h if d.get("column_order") == "hubs_first" else c
        worst.append((best / chosen["median_ms"], m, p))
        print(f"{m[:44]:44s} {p} nnz {c['nnz']:>10} cols {c['cols']:>9} conc {d.get('column_count_concentration', float('nan')):8.2f} caller {c['median_ms']*1e3:8.1f} us hubs {h['median_ms']*1e3:8.1f} ({c['median_ms']/h['median_ms']:.3f}x) auto {d.get('column_order'):10s} {a['median_ms']*1e3:8.1f} us (its pick vs best {best/chosen['median_ms']:.3f})")
worst.sort(); print("auto's pick against the better order, worst five:", [(round(w, 3), m[:30], p) for w, m, p in worst[:5]])
PY
cd $R && gzip *.jsonl run289-gpu-tests.txt && tar czf $OUT/run289.tgz run289* && cp run289.log $OUT/
echo "[$SECONDS s]"

#!/usr/bin/env bash
# Run 290: hub_min_count (the columns that column_order=hubs_first moves to the front of their
# block; the others keep the caller's order, so the apply's gather sweeps them): 1 (every
# column by count, runs 288-289), 16, 64, 256, 1024 against the caller's order, on R-MAT
# graphs (mean counts ~16 and ~42) and on uniform rows at 16 M (no hubs: the gather's cost),
# fp64 and fp16, hbp alone. Then the HBP GPU tests (8 shards) and memcheck of the order's test.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run290.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
V="--variant caller:column_order=caller"
for h in 1 16 64 256 1024; do V="$V --variant h$h:column_order=hubs_first,hub_min_count=$h"; done
timeout 330 $b/tcsparse bench gen:rmat:scale=20,edge_factor=16,seed=65 gen:rmat:scale=22,edge_factor=16,seed=43 \
  gen:rmat:scale=23,edge_factor=16,seed=44 gen:rmat:scale=24,edge_factor=16,seed=45 \
  gen:rmat:scale=18,edge_factor=48,seed=63 gen:rmat:scale=20,edge_factor=48,seed=65 gen:rmat:scale=21,edge_factor=48,seed=66 \
  gen:random:rows=16000000,cols=16000000,dist=uniform,min=4,max=12,seed=42 \
  --methods hbp --precisions fp64,fp16 --plan-builds 1 --runs 20 $V --output $R/run290-hub-min-count.jsonl > /dev/null 2>&1
echo "bench rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, math
R = sys.argv[1]
rec = [json.loads(l) for f in sorted(glob.glob(f"{R}/run290-*.jsonl")) for l in open(f)]
t = {(r["matrix"], r["precision"], r.get("variant") or "auto"): r for r in rec if "median_ms" in r}
print("checks failed:", [k for k, r in t.items() if not r.get("check_passed", True)])
vs = ["h1", "h16", "h64", "h256", "h1024"]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
for p in ("fp64", "fp16"):
    sp = {v: [] for v in vs + ["auto"]}
    for m in sorted({k[0] for k in t if k[1] == p}):
        c = t[(m, p, "caller")]; line = f"{m[:46]:46s} {p} nnz/col {c['nnz']/c['cols']:6.1f} caller {c['median_ms']*1e3:8.1f} us"
        for v in vs + ["auto"]:
            r = t.get((m, p, v))
            if r: sp[v].append(c["median_ms"] / r["median_ms"]); line += f" {v} {c['median_ms']/r['median_ms']:.3f}"
        print(line)
    print(p, "geomean over caller:", {v: round(g(x), 3) for v, x in sp.items() if x})
PY
echo "[$SECONDS s] tests"
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*:PlanBuild.*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/run290-gpu-tests.txt; rm $R/tests-*.txt
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='HbpGpuBuild.HubsFirst*' --gtest_brief=1 > $R/run290-memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/run290-memcheck.txt | tail -3
cd $R && gzip *.jsonl run290-gpu-tests.txt && tar czf $OUT/run290.tgz run290* && cp run290.log $OUT/
echo "[$SECONDS s]"

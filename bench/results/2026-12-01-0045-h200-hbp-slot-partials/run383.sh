#!/usr/bin/env bash
# Run 383: slot_output=auto with its rule (partial where x is in stripes and at most a third of
# the slots are their row's only one): the HBP, plan-build, conformance and auto-choice GPU tests
# (8 shards); the whole hbp suite, fp64 and fp16, hbp / DASP / cuSPARSE with slot_output=hash as a
# variant, three plan builds each (the build goal's median), and a second pass of hbp alone.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r383; mkdir -p $R
exec > >(tee -a $R/run383.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin383; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*:PlanBuild.*:*Conformance*:*AutoChoice*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/run383-gpu-tests.txt; rm $R/tests-*.txt
echo "[$SECONDS s] bench"
for pass in 1 2; do
  methods=hbp; builds=1; [ $pass = 1 ] && methods=hbp,dasp,cusparse && builds=3
  timeout 200 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods $methods --precisions fp64,fp16 \
    --plan-builds $builds --runs 20 --variant hash:slot_output=hash --output $R/run383-$pass.jsonl \
    > $R/run383-$pass.txt 2>&1; echo "pass $pass rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, math, statistics
R = sys.argv[1]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
t = {}
for f in sorted(glob.glob(f"{R}/run383-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        if not r.get("check_passed", True): print("CHECK FAILED", f, r["matrix"], r["precision"], r["method"])
        key = (r["matrix"], r["precision"], r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else ""))
        t.setdefault(key, []).append(r)
for p in ("fp64", "fp16"):
    rows = []
    for m in sorted({k[0] for k in t if k[1] == p}):
        get = lambda x: t.get((m, p, x))
        c, n, o, d = get("cusparse"), get("hbp"), get("hbp[hash]"), get("dasp")
        if not (c and n and o and d): print("missing", m, p); continue
        ms = lambda rs: statistics.median(r["median_ms"] for r in rs)
        part = lambda rs, k: statistics.median(r["details"].get(k, float("nan")) for r in rs)
        builds = [b for r in n for b in r["details"].get("device_preprocess_builds_ms", [r["device_preprocess_ms"]])]
        rows.append((m, ms(c)/ms(n), ms(c)/ms(o), ms(c)/ms(d), c[0]["cols"]))
        print(f"{m[:44]:44s} {p} nnz {c[0]['nnz']/1e6:6.1f}M cus {ms(c)*1e3:8.1f} | hbp {ms(n)*1e3:8.1f} ({n[0]['details'].get('slot_output')}, combine {part(n,'combine_ms')*1e3:6.1f}) | hash {ms(o)*1e3:8.1f} | dasp {ms(d)*1e3:8.1f} | hbp/hash {ms(o)/ms(n):.3f}x | over cus {ms(c)/ms(n):.3f}x | build median {statistics.median(builds):.2f} ms = {statistics.median(builds)/ms(n):.1f} SpMV-times (max {max(builds)/ms(n):.1f})")
    big = [r for r in rows if r[4] >= 8_000_000]
    for name, sel in ((">=8M cols", big), ("whole suite", rows)):
        print(f"{p} {name} ({len(sel)}): over cuSPARSE hbp {g([r[1] for r in sel]):.3f}x hash {g([r[2] for r in sel]):.3f}x dasp {g([r[3] for r in sel]):.3f}x; hbp over dasp {g([r[1]/r[3] for r in sel]):.3f}x, hash over dasp {g([r[2]/r[3] for r in sel]):.3f}x")
PY
cd $R && gzip -f *.jsonl run383-gpu-tests.txt && cp run383-*.gz run383-*.txt run383.log $OUT/
echo "[$SECONDS s]"

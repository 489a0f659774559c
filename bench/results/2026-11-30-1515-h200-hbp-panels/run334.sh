#!/usr/bin/env bash
# Run 334: kernel=panels (a thread block a panel of rows through every column block, the sums in
# shared memory, no partial sums, no combine) against the groups kernel (auto) on the hbp suite's
# matrices of >= 8 M columns, fp64 and fp16, with DASP and cuSPARSE; the HBP GPU tests (8 shards);
# memcheck and racecheck on the panels tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $R/run334.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/run334-gpu-tests.txt; rm $R/tests-*.txt
echo "[$SECONDS s] sanitizers"
timeout 120 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='HbpGpu.PanelLaunches*:HbpGpu.PanelsRefuse*' > $R/run334-memcheck.txt 2>&1; echo "memcheck rc $?"; tail -3 $R/run334-memcheck.txt
timeout 150 compute-sanitizer --tool racecheck $b/tcsparse_gpu_tests --gtest_filter='HbpGpu.PanelLaunches*' > $R/run334-racecheck.txt 2>&1; echo "racecheck rc $?"; tail -3 $R/run334-racecheck.txt
echo "[$SECONDS s] bench"
timeout 330 $b/tcsparse bench \
  gen:rmat:scale=23,edge_factor=16,seed=44 gen:rmat:scale=24,edge_factor=16,seed=45 \
  gen:random:rows=16000000,cols=16000000,dist=power_law,min=1,max=20000,exponent=2,seed=46 \
  gen:random:rows=16000000,cols=16000000,dist=uniform,min=4,max=12,seed=42 \
  gen:banded:n=24000000,bandwidth=1,seed=68 \
  --methods hbp,dasp,cusparse --precisions fp64,fp16 --plan-builds 1 --runs 20 \
  --variant panels:kernel=panels,max_slot_length=65536 \
  --output $R/run334-large.jsonl > $R/run334-bench.txt 2>&1; echo "bench rc $? [$SECONDS s]"
tail -5 $R/run334-bench.txt
python3 - $R <<'PY'
import json, sys, glob, math
R = sys.argv[1]
rec = [json.loads(l) for f in glob.glob(f"{R}/run334-*.jsonl") for l in open(f)]
t = {}
for r in rec:
    if "median_ms" not in r: continue
    t[(r["matrix"], r["precision"], r["method"] + (("[" + r["variant"] + "]") if r.get("variant") else ""))] = r
print("checks failed:", [k for k, r in t.items() if not r.get("check_passed", True)])
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
for p in ("fp64", "fp16"):
    rows = []
    for m in sorted({k[0] for k in t if k[1] == p}):
        try: c, h, hp, d = (t[(m, p, x)] for x in ("cusparse", "hbp", "hbp[panels]", "dasp"))
        except KeyError as e: print("missing", m, p, e); continue
        ms = lambda r: r["median_ms"]; det = hp.get("details", {})
        rows.append((m, ms(c)/ms(h), ms(c)/ms(hp), ms(c)/ms(d)))
        print(f"{m[:40]:40s} {p} cus {ms(c)*1e3:8.1f} | groups {ms(h)*1e3:8.1f} | panels {ms(hp)*1e3:8.1f} (panels {det.get('panels')} x {det.get('panel_rows')} rows, {det.get('panel_launches')} launches, longest {det.get('longest_slot')}, gpt {det.get('groups_per_ticket')}) | dasp {ms(d)*1e3:8.1f} | panels/groups {ms(h)/ms(hp):.3f}x | over cus: groups {ms(c)/ms(h):.3f} panels {ms(c)/ms(hp):.3f} | build panels {hp['device_preprocess_ms']:.2f} ms = {hp['device_preprocess_ms']/ms(hp):.1f} SpMVs")
    print(f"{p} geomean over cuSPARSE: groups {g([r[1] for r in rows]):.3f}x panels {g([r[2] for r in rows]):.3f}x dasp {g([r[3] for r in rows]):.3f}x; panels over dasp {g([r[2]/r[3] for r in rows]):.3f}x")
PY
cd $R && gzip -f *.jsonl run334-gpu-tests.txt && tar czf $OUT/run334.tgz run334* && cp run334.log $OUT/
echo "[$SECONDS s]"

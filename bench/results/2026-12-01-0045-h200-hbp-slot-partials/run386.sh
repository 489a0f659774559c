#!/usr/bin/env bash
# Run 386: slot_output=partial against slot_output=hash as a variant in fp32 and bf16 (run 382 measured
# fp64 and fp16), on the hbp suite's matrices of >= 8 M columns and kron_like_21, with cuSPARSE and
# DASP, two passes (the binaries of run 384).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r386; mkdir -p $R
exec > >(tee -a $R/run386.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin386; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
echo "[$SECONDS s] bench"
M="gen:rmat:scale=23,edge_factor=16,seed=44 gen:rmat:scale=24,edge_factor=16,seed=45
  gen:random:rows=16000000,cols=16000000,dist=power_law,min=1,max=20000,exponent=2,seed=46
  gen:random:rows=16000000,cols=16000000,dist=uniform,min=4,max=12,seed=42
  gen:banded:n=24000000,bandwidth=1,seed=68 gen:rmat:scale=21,edge_factor=48,seed=66"
for pass in 1 2; do
  methods=hbp; [ $pass = 1 ] && methods=hbp,dasp,cusparse
  timeout 200 $b/tcsparse bench $M --methods $methods --precisions fp32,bf16 --plan-builds 1 --runs 20 \
    --variant hash:slot_output=hash --output $R/run386-$pass.jsonl > /dev/null 2>&1; echo "pass $pass rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, math, statistics
R = sys.argv[1]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
t = {}
for f in sorted(glob.glob(f"{R}/run386-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        if not r.get("check_passed", True): print("CHECK FAILED", f, r["matrix"], r["precision"], r["method"])
        key = (r["matrix"], r["precision"], r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else ""))
        t.setdefault(key, []).append(r)
for p in ("fp32", "bf16"):
    rows = []
    for m in sorted({k[0] for k in t if k[1] == p}):
        get = lambda x: t.get((m, p, x))
        c, n, o, d = get("cusparse"), get("hbp"), get("hbp[hash]"), get("dasp")
        if not (c and n and o and d): print("missing", m, p); continue
        ms = lambda rs: statistics.median(r["median_ms"] for r in rs)
        part = lambda rs, k: statistics.median(r["details"].get(k, float("nan")) for r in rs)
        top = lambda rs, k: statistics.median(r.get(k, float("nan")) for r in rs)
        rows.append((m, ms(c)/ms(n), ms(c)/ms(o), ms(c)/ms(d), c[0]["cols"]))
        print(f"{m[:40]:40s} {p} cus {ms(c)*1e3:8.1f} | partial {ms(n)*1e3:8.1f} (spmv {part(n,'spmv_ms')*1e3:7.1f} combine {part(n,'combine_ms')*1e3:6.1f}, {n[0]['details'].get('slot_output')}) | hash {ms(o)*1e3:8.1f} (spmv {part(o,'spmv_ms')*1e3:7.1f} combine {part(o,'combine_ms')*1e3:6.1f}) | dasp {ms(d)*1e3:8.1f} | partial/hash {ms(o)/ms(n):.3f}x | build {top(n,'device_preprocess_ms'):.2f} / {top(o,'device_preprocess_ms'):.2f} ms, rewrite {n[0]['details'].get('plan_phases_ms',{}).get('slot_partials',0):.2f} ms, MB {n[0]['device_bytes']/1e6:.0f} / {o[0]['device_bytes']/1e6:.0f}, slots {o[0]['details'].get('slots')} partials {o[0]['details'].get('partial_sums')} single-slot share {1-o[0]['details'].get('partial_sums',0)/max(1,o[0]['details'].get('slots',1)):.3f}")
    big = [r for r in rows if r[4] >= 8_000_000]
    print(f"{p} >=8M cols ({len(big)}): over cuSPARSE partial {g([r[1] for r in big]):.3f}x hash {g([r[2] for r in big]):.3f}x dasp {g([r[3] for r in big]):.3f}x; partial over dasp {g([r[1]/r[3] for r in big]):.3f}x, hash over dasp {g([r[2]/r[3] for r in big]):.3f}x")
PY
cd $R && gzip -f *.jsonl && cp run386-*.gz run386.log $OUT/
echo "[$SECONDS s]"

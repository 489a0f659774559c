#!/usr/bin/env bash
# Run 301: run 300's comparison (tcsparse_old = 2528f95 against the bounces taken from the pool)
# on three matrices of the large suite: cage11 x 35 (whose fp16 / bf16 builds were above 100
# SpMV-times), 4 M rows of 4-12 and 4 M rows of 1-4 values; DASP, three builds, alternating twice.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee -a $OUT/run301.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/tcsparse_old.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
specs="gen:replicate:file=.mx/suitesparse/cage11.mtx.gz,copies=35,seed=10 gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=41 gen:short:rows=4000000,cols=4000000,seed=47"
for pass in 1 2; do
  for bin in tcsparse_old tcsparse; do
    timeout 120 $b/$bin bench $specs --methods dasp --precisions fp64,fp16,bf16 \
      --plan-builds 3 --runs 20 --output $OUT/run301-large-$bin-$pass.jsonl > /dev/null 2>&1
    echo "$bin pass $pass rc $? [$SECONDS s]"
  done
done
python3 - $OUT <<'PY'
import json, sys, glob, statistics
R = sys.argv[1]
rows = {}
for f in sorted(glob.glob(f"{R}/run301-large-*.jsonl")):
    binary = f.split("large-")[1].rsplit("-", 1)[0]
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        rows.setdefault((r["matrix"][:40], r["precision"]), {}).setdefault(binary, []).append(r)
for (m, p), by in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    out = f"{m:40s} {p}"
    for binary in ("tcsparse_old", "tcsparse"):
        rs = by.get(binary, [])
        if not rs: continue
        builds = [b for r in rs for b in (r["details"].get("plan_builds_ms") or [r["plan_build_ms"]])]
        spmv = statistics.median(r["median_ms"] for r in rs)
        out += f" | {binary[9:] or 'new'}: {statistics.median(builds):5.2f} ms = {statistics.median(builds)/spmv:5.1f} x (upload {statistics.median(r['upload_ms'] for r in rs):4.2f})"
    print(out)
PY
gzip $OUT/*.jsonl
echo "[$SECONDS s]"

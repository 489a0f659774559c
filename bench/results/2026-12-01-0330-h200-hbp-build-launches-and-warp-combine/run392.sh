#!/usr/bin/env bash
# Run 392: hbp's block_rows and max_slot_length against auto on the hbp suite, fp64 / fp16, as
# variants in one run (auto halves block_rows from 4096 down to 32 while the matrix has fewer
# than 16384 blocks: 32 on the circuit-like and mip1-like matrices).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r392; mkdir -p $R
exec > >(tee -a $R/run392.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin392; mkdir -p $b
for f in .device-bin/tcsparse.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
timeout 250 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 --runs 20 \
  --variant br256:block_rows=256 --variant br1024:block_rows=1024 --variant br4096:block_rows=4096 \
  --variant sort4096:block_rows=4096,reorder=sort \
  --output $R/run392-block-rows.jsonl > /dev/null 2>&1; echo "block_rows rc $? [$SECONDS s]"
timeout 200 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp --precisions fp64,fp16 --runs 20 \
  --variant s256:max_slot_length=256 --variant s4096:max_slot_length=4096 \
  --variant w32:warp_row_length=32 --variant w128:warp_row_length=128 \
  --output $R/run392-slots.jsonl > /dev/null 2>&1; echo "slots rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, math
R = sys.argv[1]
for name, labels in (("block-rows", ["auto", "br256", "br1024", "br4096", "sort4096"]),
                     ("slots", ["auto", "s256", "s4096", "w32", "w128"])):
    s = {}
    for l in open(f"{R}/run392-{name}.jsonl"):
        r = json.loads(l)
        if "median_ms" not in r: continue
        if not r.get("check_passed", True): print("CHECK FAILED", name, r["matrix"], r["precision"], r.get("variant"))
        s[(r["matrix"], r["precision"], r.get("variant") or "auto")] = r
    for p in ("fp64", "fp16"):
        ms = sorted({k[0] for k in s if k[1] == p})
        for m in ms:
            a = s[(m, p, "auto")]
            line = f"{name} {p} {m[:22]:22s} br {a['details']['block_rows']:5d} cb {a['details']['column_blocks']:3d}"
            for v in labels:
                r = s.get((m, p, v))
                if r: line += f" | {v} {r['median_ms']*1e3:8.1f}"
            print(line)
        for v in labels[1:]:
            xs = [s[(m,p,'auto')]['median_ms'] / s[(m,p,v)]['median_ms'] for m in ms if (m,p,v) in s]
            one = [s[(m,p,'auto')]['median_ms'] / s[(m,p,v)]['median_ms'] for m in ms if (m,p,v) in s and s[(m,p,'auto')]['details']['column_blocks'] == 1]
            g = lambda xs: math.exp(sum(map(math.log, xs))/len(xs))
            print(f"{name} {p} {v} over auto: all {g(xs):.4f}x (min {min(xs):.3f} max {max(xs):.3f}); one column block ({len(one)}) {g(one):.4f}x (min {min(one):.3f} max {max(one):.3f})")
PY
cd $R && gzip -f *.jsonl && cp run392-* $OUT/
echo "[$SECONDS s]"

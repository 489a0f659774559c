#!/usr/bin/env bash
# Run 335: how many stripes of x (block_cols) the hbp suite's matrices of >= 8 M columns run
# fastest in (fp64, kernel=groups as auto takes it), and max_slot_length on the R-MAT graphs,
# against auto (the fewest stripes of at most a third of the L2) and cuSPARSE in the same run.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $R/run335.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
bench() { local name=$1; shift; timeout 200 $b/tcsparse bench "$@" --methods hbp,cusparse --precisions fp64 \
  --plan-builds 1 --runs 20 --output $R/run335-$name.jsonl > $R/run335-$name.txt 2>&1; echo "$name rc $? [$SECONDS s]"; }
bench rmat23 gen:rmat:scale=23,edge_factor=16,seed=44 --variant s2:block_cols=4194304 \
  --variant s3:block_cols=2796208 --variant s6:block_cols=1398104 --variant m256:max_slot_length=256 \
  --variant m4096:max_slot_length=4096 --variant s2m4096:block_cols=4194304,max_slot_length=4096
bench rmat24 gen:rmat:scale=24,edge_factor=16,seed=45 --variant s4:block_cols=4194304 \
  --variant s5:block_cols=3355448 --variant s10:block_cols=1677728 --variant m256:max_slot_length=256 \
  --variant m4096:max_slot_length=4096 --variant s4m4096:block_cols=4194304,max_slot_length=4096
bench rows16m gen:random:rows=16000000,cols=16000000,dist=power_law,min=1,max=20000,exponent=2,seed=46 \
  gen:random:rows=16000000,cols=16000000,dist=uniform,min=4,max=12,seed=42 \
  --variant s4:block_cols=4000000 --variant s5:block_cols=3200000 --variant s10:block_cols=1600000
bench band24m gen:banded:n=24000000,bandwidth=1,seed=68 --variant s1:block_cols=24000000 \
  --variant s3:block_cols=8000000
python3 - $R <<'PY'
import json, sys, glob
R = sys.argv[1]
for f in sorted(glob.glob(f"{R}/run335-*.jsonl")):
    rec = [json.loads(l) for l in open(f)]
    by = {}
    for r in rec:
        if "median_ms" not in r: continue
        by.setdefault(r["matrix"], {})[r["method"] + (("[" + r["variant"] + "]") if r.get("variant") else "")] = r
    for m, t in by.items():
        c = t.get("cusparse"); base = t.get("hbp")
        if not c or not base: print("missing", m); continue
        print(f"{m[:60]}: cusparse {c['median_ms']*1e3:.1f} us")
        for k, r in sorted(t.items(), key=lambda kv: kv[1]["median_ms"]):
            d = r.get("details", {})
            print(f"   {k:22s} {r['median_ms']*1e3:8.1f} us  {c['median_ms']/r['median_ms']:.3f}x cus  {base['median_ms']/r['median_ms']:.3f}x auto  block_cols {d.get('block_cols')} partials {d.get('partial_sums')} slots {d.get('slots')} check {r.get('check_passed')}")
PY
cd $R && gzip -f *.jsonl && tar czf $OUT/run335.tgz run335* && cp run335.log $OUT/
echo "[$SECONDS s]"

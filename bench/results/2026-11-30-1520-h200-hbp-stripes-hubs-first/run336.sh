#!/usr/bin/env bash
# Run 336: finer: the R-MAT graphs (hubs first) in 6-20 stripes, fp64 and fp16, power law and uniform rows at 6-12,
# fastest in (fp64, kernel=groups as auto takes it), and max_slot_length on the R-MAT graphs,
# against auto (the fewest stripes of at most a third of the L2) and cuSPARSE in the same run.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $R/run336.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
bench() { local name=$1; shift; timeout 200 $b/tcsparse bench "$@" --methods hbp,cusparse --precisions fp64,fp16 \
  --plan-builds 1 --runs 20 --output $R/run336-$name.jsonl > $R/run336-$name.txt 2>&1; echo "$name rc $? [$SECONDS s]"; }
bench rmat23 gen:rmat:scale=23,edge_factor=16,seed=44 --variant s6:block_cols=1398104 \
  --variant s7:block_cols=1198376 --variant s8:block_cols=1048576 --variant s10:block_cols=838864 \
  --variant s12:block_cols=699056
bench rmat24 gen:rmat:scale=24,edge_factor=16,seed=45 --variant s10:block_cols=1677728 \
  --variant s12:block_cols=1398104 --variant s14:block_cols=1198376 --variant s16:block_cols=1048576 \
  --variant s20:block_cols=838864
bench rows16m gen:random:rows=16000000,cols=16000000,dist=power_law,min=1,max=20000,exponent=2,seed=46 \
  gen:random:rows=16000000,cols=16000000,dist=uniform,min=4,max=12,seed=42 \
  --variant s6:block_cols=2666672 --variant s8:block_cols=2000000 --variant s12:block_cols=1333336
python3 - $R <<'PY'
import json, sys, glob
R = sys.argv[1]
for f in sorted(glob.glob(f"{R}/run336-*.jsonl")):
    rec = [json.loads(l) for l in open(f)]
    by = {}
    for r in rec:
        if "median_ms" not in r: continue
        by.setdefault(r["matrix"] + " " + r["precision"], {})[r["method"] + (("[" + r["variant"] + "]") if r.get("variant") else "")] = r
    for m, t in by.items():
        c = t.get("cusparse"); base = t.get("hbp")
        if not c or not base: print("missing", m); continue
        print(f"{m[:60]}: cusparse {c['median_ms']*1e3:.1f} us")
        for k, r in sorted(t.items(), key=lambda kv: kv[1]["median_ms"]):
            d = r.get("details", {})
            print(f"   {k:22s} {r['median_ms']*1e3:8.1f} us  {c['median_ms']/r['median_ms']:.3f}x cus  {base['median_ms']/r['median_ms']:.3f}x auto  block_cols {d.get('block_cols')} partials {d.get('partial_sums')} slots {d.get('slots')} check {r.get('check_passed')}")
PY
cd $R && gzip -f *.jsonl && tar czf $OUT/run336.tgz run336* && cp run336.log $OUT/
echo "[$SECONDS s]"

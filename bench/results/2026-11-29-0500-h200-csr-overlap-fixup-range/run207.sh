#!/usr/bin/env bash
# Run 207: the binary of run 204. The rows partition's named parameters the README still listed
# as "to be measured": register_bound=on, row_threads_max=32 / off, warp_row_factor=16 / 64 / off,
# each against the rows partition's defaults (variant rows: partition=rows), default suite, fp64
# and fp32, one round.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run207.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/tcsparse
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 200 $b/tcsparse bench --suite default --methods csr_overlap --precisions fp64,fp32 --runs 20 \
  --variant rows:partition=rows --variant rb:register_bound=on --variant rt32:row_threads_max=32 \
  --variant rtoff:row_threads_max=off --variant wr16:warp_row_factor=16 --variant wr64:warp_row_factor=64 \
  --variant wroff:warp_row_factor=off --output $R/rows-parameters.jsonl > /dev/null 2>&1
echo "rows parameters rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, math, collections
R = sys.argv[1]
gm = lambda s: math.exp(sum(map(math.log, s)) / len(s))
t = {}
for line in open(f"{R}/rows-parameters.jsonl"):
    r = json.loads(line)
    if not r.get("check_passed", True): print("CHECK FAILED", r["matrix"], r["precision"], r.get("variant"))
    t[(r["matrix"], r["precision"], r.get("variant", ""))] = r
for v in ("rb", "rt32", "rtoff", "wr16", "wr64", "wroff"):
    for p in ("fp64", "fp32"):
        xs = [t[(m, p, "rows")]["median_ms"] / r["median_ms"] for (m, pp, vv), r in t.items() if vv == v and pp == p and (m, p, "rows") in t]
        worst = min(((t[(m, p, "rows")]["median_ms"] / r["median_ms"], m) for (m, pp, vv), r in t.items() if vv == v and pp == p and (m, p, "rows") in t))
        best = max(((t[(m, p, "rows")]["median_ms"] / r["median_ms"], m) for (m, pp, vv), r in t.items() if vv == v and pp == p and (m, p, "rows") in t))
        print(f"{v:6s} {p}: speed over the rows defaults geomean {gm(xs):.3f} over {len(xs)}; lowest {worst[0]:.3f} {worst[1]}, highest {best[0]:.3f} {best[1]}")
PY
cd $OUT && tar czf r.tgz r && rm -rf r

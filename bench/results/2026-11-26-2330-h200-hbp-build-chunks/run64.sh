#!/usr/bin/env bash
# Run: hbp GPU build with a pool that keeps freed temporaries, event-timed steps and fewer waits
# (new), the same with 256-nonzero row chunks (c256), against HEAD (old): the hbp suite twice in
# turns; and dasp's plan build (old / new) on the large suite.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run64.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for x in tcsparse tcsparse_old tcsparse_c256; do xz -dc .device-bin/$x.xz > $b/$x; done; chmod +x $b/*
SECONDS=0
for round in 1 2; do for v in old new c256; do
  bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old; [ $v = c256 ] && bin=$b/tcsparse_c256
  timeout 150 $bin bench --suite hbp --matrix-dir .exp/m --methods hbp --precisions fp64 --plan-builds 5 --runs 10 \
    --output $R/hbp-$v-$round.jsonl > /dev/null 2>&1; echo "hbp $v $round rc $? [$SECONDS s]"
done; done
for v in old new; do
  bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
  timeout 150 $bin bench --suite large --matrix-dir .exp/m --methods dasp --precisions fp64 --plan-builds 3 --runs 10 \
    --output $R/dasp-$v.jsonl > /dev/null 2>&1; echo "dasp $v rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, statistics, collections
R = sys.argv[1]
def load(p):
    try: return [json.loads(l) for l in open(p)]
    except FileNotFoundError: return []
builds = collections.defaultdict(lambda: collections.defaultdict(list)); spmv = {}
phases = collections.defaultdict(dict)
for v in ("old", "new", "c256"):
    for rnd in (1, 2):
        for r in load(f"{R}/hbp-{v}-{rnd}.jsonl"):
            builds[r["matrix"]][v].append(r["device_preprocess_ms"]); spmv.setdefault(r["matrix"], r["median_ms"])
            phases[r["matrix"]][v] = {k: round(x, 2) for k, x in r.get("details", {}).get("plan_phases_ms", {}).items()}
print(f"{'matrix':22s} {'nnz-spmv ms':>10s} | device_preprocess_ms old / new / c256 (two rounds each) | SpMV-times old new c256")
for m, d in builds.items():
    s = spmv[m]
    f = lambda v: min(d[v]) if d[v] else float("nan")
    print(f"{m:22s} {s:10.4f} | {d['old']} {d['new']} {d['c256']} | {f('old')/s:6.1f} {f('new')/s:6.1f} {f('c256')/s:6.1f}")
    print("     new", phases[m].get("new"), "\n    c256", phases[m].get("c256"))
old = {r["matrix"]: r for r in load(f"{R}/dasp-old.jsonl")}
for r in load(f"{R}/dasp-new.jsonl"):
    o = old.get(r["matrix"])
    if not o: continue
    print(f"dasp {r['matrix']:28s} build old {o['plan_build_ms']:8.2f} new {r['plan_build_ms']:8.2f} ms | spmv {r['median_ms']:.4f} | {o['plan_build_ms']/o['median_ms']:6.1f} -> {r['plan_build_ms']/r['median_ms']:6.1f} SpMV-times")
PY
cd $R && tar czf $OUT/run64-records.tgz *.jsonl && rm -rf $R
echo "[$SECONDS s]"

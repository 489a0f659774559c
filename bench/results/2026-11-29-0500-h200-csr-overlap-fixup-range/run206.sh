#!/usr/bin/env bash
# Run 206: the binary of run 204 (commit b89be8c's code). Two of issue 9's measurements the
# parameter table still listed as "to be measured": 1. copy=bulk (the sm_90 bulk copy, TMA 1D)
# against copy=cp_async in csr_overlap's batch kernel (giving copy keeps the rows partition),
# default suite, every precision, two rounds, and in csr_full_overlap (one round); 2. plans from
# device CSR that borrow the caller's arrays (device_csr=auto) against ones that copy them
# (device_csr=copy), default suite, fp64 and fp32, one round each.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run206.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/tcsparse
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for round in 1 2; do
  timeout 120 $b/tcsparse bench --suite default --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
    --runs 20 --variant cpa:copy=cp_async --variant bulk:copy=bulk --output $R/copy-$round.jsonl > /dev/null 2>&1
  echo "copy round $round rc $? [$SECONDS s]"
done
timeout 150 $b/tcsparse bench --suite default --methods csr_full_overlap --precisions fp64,fp32 \
  --runs 5 --variant bulk:copy=bulk --output $R/full-copy.jsonl > /dev/null 2>&1
echo "full overlap copy rc $? [$SECONDS s]"
for v in borrow copy; do
  p=""; [ $v = copy ] && p="--param device_csr=copy"
  timeout 100 $b/tcsparse bench --suite default --methods csr_overlap --precisions fp64,fp32 \
    --from-device --plan-builds 5 --runs 10 $p --output $R/from-device-$v.jsonl > /dev/null 2>&1
  echo "from-device $v rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, math, collections, statistics
R = sys.argv[1]
gm = lambda s: math.exp(sum(map(math.log, s)) / len(s))
def load(path):
    t = {}
    for line in open(path):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", path, r["matrix"], r["precision"], r["method"], r.get("variant"))
        t[(r["matrix"], r["precision"], r["method"], r.get("variant", ""))] = r
    return t
ratio = collections.defaultdict(list)  # precision -> bulk / cp_async time
for name in sorted(glob.glob(f"{R}/copy-*.jsonl")):
    t = load(name)
    for (m, p, me, v), r in t.items():
        if me == "csr_overlap" and v == "bulk" and (m, p, me, "cpa") in t:
            ratio[p].append(t[(m, p, me, "cpa")]["median_ms"] / r["median_ms"])
for p, xs in ratio.items():
    print(f"csr_overlap rows partition, {p}: cp_async time / bulk time geomean {gm(xs):.3f} (min {min(xs):.3f}, max {max(xs):.3f}, {len(xs)} cases)")
t = load(f"{R}/full-copy.jsonl")
xs = [t[(m, p, me, "")]["median_ms"] / r["median_ms"] for (m, p, me, v), r in t.items() if v == "bulk" and (m, p, me, "") in t]
if xs: print(f"csr_full_overlap: cp_async time / bulk time geomean {gm(xs):.3f} (min {min(xs):.3f}, max {max(xs):.3f}, {len(xs)} cases)")
b = load(f"{R}/from-device-borrow.jsonl"); c = load(f"{R}/from-device-copy.jsonl")
big = [(k, r) for k, r in b.items() if r["nnz"] >= 1e6 and k in c]
print("plans from device CSR, >= 1 M nonzeros: build borrow / copy, median "
      f"{statistics.median(r['plan_build_ms'] for k, r in big):.3f} / {statistics.median(c[k]['plan_build_ms'] for k, r in big):.3f} ms; "
      f"apply copy / borrow geomean {gm([c[k]['median_ms'] / r['median_ms'] for k, r in big]):.3f}")
PY
cd $OUT && tar czf r.tgz r && rm -rf r

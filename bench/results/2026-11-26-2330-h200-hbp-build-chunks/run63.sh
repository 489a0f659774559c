#!/usr/bin/env bash
# Run: where a small hbp GPU build spends its time (ncu: every kernel's GPU time in one build, against
# the build's device_preprocess_ms), and the build before/after the chunked rows interleaved on the
# three matrices whose build looked slower in run61.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run63.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for x in tcsparse tcsparse_old; do xz -dc .device-bin/$x.xz > $b/$x; done; chmod +x $b/*
SECONDS=0
REPLICA=gen:replicate:file=.exp/m/suitesparse/rajat01.mtx.gz,copies=50
CIRCUIT=gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61
UNIFORM=gen:random:rows=16000000,cols=16000000,dist=uniform,min=4,max=12,seed=42
for name in replica circuit uniform uniform_old; do
  spec=$REPLICA; [ $name = circuit ] && spec=$CIRCUIT; [ ${name%_old} = uniform ] && spec=$UNIFORM
  bin=$b/tcsparse; [ $name = uniform_old ] && bin=$b/tcsparse_old
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
    $bin bench $spec --methods hbp --precisions fp64 --plan-builds 1 --runs 1 --warmup-ms 0 \
    --output $R/ncu-$name.jsonl > $R/ncu-$name.csv 2> $R/ncu-$name.err; echo "ncu $name rc $? [$SECONDS s]"
  $bin bench $spec --methods hbp --precisions fp64 --plan-builds 5 --runs 20 --output $R/plain-$name.jsonl > /dev/null 2>&1
  python3 - $R/ncu-$name.csv $R/plain-$name.jsonl <<'PY'
import csv, sys, json, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]; rows = rows[1:]
ki = head.index("Kernel Name"); vi = head.index("Metric Value")
total = collections.defaultdict(float); count = collections.Counter()
for r in rows:
    name = r[ki].split("(")[0].split("<")[0]
    total[name] += float(r[vi].replace(",", "")) / 1e3; count[name] += 1
print("kernels:", sum(count.values()), "GPU us total:", round(sum(total.values()), 1))
for n, t in sorted(total.items(), key=lambda x: -x[1])[:40]:
    print(f"  {t:9.1f} us  x{count[n]:3d}  {n}")
for l in open(sys.argv[2]):
    r = json.loads(l)
    print("plain build:", r["device_preprocess_ms"], "ms; phases", r.get("details", {}).get("plan_phases_ms"), "spmv", r["median_ms"])
PY
done
cd $R && tar czf $OUT/ncu.tgz ncu-* plain-* && rm -rf $R
echo "[$SECONDS s]"

#!/usr/bin/env bash
# Run 303: why run 302's last matrices uploaded slowly. The host's memory and its state, vmstat
# every second, and DASP fp16 plans (three builds) of cage11 x 35 on its own, then after R-MAT 24
# in the same process (as the large suite orders them).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee -a $OUT/run303.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/tcsparse
grep -E "MemTotal|MemFree|MemAvailable|^Cached|SwapTotal|SwapFree|AnonHugePages" /proc/meminfo
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null
vmstat 1 > $OUT/run303-vmstat.txt 2>&1 &
vm=$!
SECONDS=0
cage="gen:replicate:file=.mx/suitesparse/cage11.mtx.gz,copies=35,seed=10"
rmat="gen:rmat:scale=24,edge_factor=16,seed=45"
for order in "$cage" "$rmat $cage"; do
  label=$([ "$order" = "$cage" ] && echo alone || echo after-rmat24)
  timeout 150 $b/tcsparse bench $order --methods dasp --precisions fp64,fp16 --plan-builds 3 --runs 10 \
    --output $OUT/run303-$label.jsonl > /dev/null 2>&1
  echo "$label rc $? [$SECONDS s]"
  grep -E "MemFree|MemAvailable|SwapFree" /proc/meminfo | tr '\n' ' '; echo
done
kill $vm
python3 - $OUT <<'PY'
import json, sys, glob, statistics
for f in sorted(glob.glob(f"{sys.argv[1]}/run303-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        builds = r["details"].get("plan_builds_ms") or [r["plan_build_ms"]]
        print(f'{f.split("run303-")[1]:22s} {r["matrix"][:30]:30s} {r["precision"]} builds {[round(x, 2) for x in builds]} = {statistics.median(builds)/r["median_ms"]:6.1f} x, upload {r["upload_ms"]:6.2f} ms')
PY
awk 'NR<=2 || NR%5==0' $OUT/run303-vmstat.txt | head -40
gzip $OUT/*.jsonl

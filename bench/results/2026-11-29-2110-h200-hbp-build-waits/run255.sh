#!/usr/bin/env bash
# Run 255: run 254's binaries (old: cc3bfcf, new: the double-buffered sort) on the smaller hbp
# matrices only, in the order new old old new new old old new, five builds each: was run 254's
# small-build difference (new 10-20 % slower, old always run first) the code or the order?
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run255.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/tcsparse_old.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
M="gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50,seed=10 gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67 gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61 gen:rmat:scale=18,edge_factor=48,seed=63 gen:rmat:scale=19,edge_factor=48,seed=64"
i=0
for v in new old old new new old old new; do
  i=$((i+1)); bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
  timeout 120 $bin bench $M --methods hbp --precisions fp64,fp16 --plan-builds 5 --runs 5 \
    --output $R/small-$v-$i.jsonl > /dev/null 2>&1; echo "$v $i rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, collections, statistics
R = sys.argv[1]
b = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{R}/small-*.jsonl")):
    v = f.split("small-")[1].split("-")[0]
    for l in open(f):
        r = json.loads(l)
        b[(r["matrix"], r["precision"])][v].append(r["device_preprocess_ms"])
print("matrix precision | old: median of passes (each the median of 5 builds), lowest | new")
for k, d in sorted(b.items()):
    print(f"{k[0][:40]:40s} {k[1]} | {statistics.median(d['old']):.3f} {min(d['old']):.3f} | {statistics.median(d['new']):.3f} {min(d['new']):.3f} | new/old {statistics.median(d['new'])/statistics.median(d['old']):.3f}")
PY
cd $R && gzip *.jsonl && tar czf $OUT/run255.tgz . && cp run255.log $OUT/
echo "[$SECONDS s]"

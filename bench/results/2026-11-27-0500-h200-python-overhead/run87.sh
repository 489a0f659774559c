#!/usr/bin/env bash
# Run 87: Python per-call overhead of this tree (paired batches, host time), three processes; the
# Python GPU tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run87.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 --version
deps=$PWD/.deps/root/usr
zlib=$(ls /lib/x86_64-linux-gnu/libz.so* /usr/lib/x86_64-linux-gnu/libz.so* 2>/dev/null | head -1)
SECONDS=0
python3 -m pip install -q --no-build-isolation --no-deps -Cbuild-dir=build/python \
  -Ccmake.define.CMAKE_CUDA_ARCHITECTURES=90 \
  "-Ccmake.define.CMAKE_PREFIX_PATH=$deps;$deps/lib/x86_64-linux-gnu/cmake" \
  -Ccmake.define.ZLIB_INCLUDE_DIR=$deps/include -Ccmake.define.ZLIB_LIBRARY=$zlib . > $R/pip.log 2>&1
echo "pip rc $? [$SECONDS s]"
for run in 1 2 3; do
  timeout 150 python3 bench/python_overhead.py --repeats 11 > $R/overhead-$run.jsonl 2> $R/overhead-$run.err
  echo "overhead $run rc $? [$SECONDS s]"
done
timeout 200 python3 -m pytest -q -ra python/tests > $R/pytest-gpu.log 2>&1; echo "pytest rc $? [$SECONDS s]"; tail -4 $R/pytest-gpu.log
python3 - $R <<'PY'
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/overhead-*.jsonl")):
    for line in open(f):
        r = json.loads(line)
        print(f.split("/")[-1], r["library"], r["method"], "overhead %.2f us (min %.2f), call %.2f, apply %.2f, checked %.1f" % (
            r["python_overhead_us"], r["python_overhead_min_us"], r["python_call_us"], r["extension_apply_us"], r["checked_call_us"]))
PY
cd $OUT && tar czf run87.tgz r run87.log && rm -rf r

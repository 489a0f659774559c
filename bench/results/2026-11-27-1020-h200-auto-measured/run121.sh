#!/usr/bin/env bash
# Run 121 (final code): the Python CG example with the measured "auto" against a cusparse plan and
# cupyx.scipy.sparse.linalg.cg on generated 3D Poisson matrices (issue 12's CG goal), after
# building the package on the GPU machine.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee -a $OUT/run121.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
deps=$PWD/.deps/root/usr
zlib=$(ls /lib/x86_64-linux-gnu/libz.so* /usr/lib/x86_64-linux-gnu/libz.so* 2>/dev/null | head -1)
SECONDS=0
python3 -m pip install -q --no-build-isolation --no-deps -Cbuild-dir=build/python \
  -Ccmake.define.CMAKE_CUDA_ARCHITECTURES=90 \
  "-Ccmake.define.CMAKE_PREFIX_PATH=$deps;$deps/lib/x86_64-linux-gnu/cmake" \
  -Ccmake.define.ZLIB_INCLUDE_DIR=$deps/include -Ccmake.define.ZLIB_LIBRARY=$zlib . > $OUT/pip.log 2>&1
echo "pip rc $? [$SECONDS s]"
for n in 100 150; do
  SECONDS=0
  timeout 120 python3 examples/cg.py poisson3d:$n --repeats 3 > $OUT/cg-py-$n.log 2>&1
  echo "cg.py poisson3d:$n rc $? [$SECONDS s]"; cat $OUT/cg-py-$n.log
done

#!/usr/bin/env bash
# Run 261: the three probes after their timing and device lookup moved to bench/probe_support.hpp
# (a refactor): each runs once, to show that it still finds the GPU, times and checks.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee -a $OUT/run261.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
timeout 60 $b/tcsparse_gather_ceiling; echo "gather_ceiling rc $? [$SECONDS s]"
timeout 120 $b/tcsparse_stripe_probe rmat:scale=20,edge_factor=16,seed=3; echo "stripe_probe rc $? [$SECONDS s]"
timeout 120 $b/tcsparse_shared_x_probe rmat:scale=18,edge_factor=48,seed=63; echo "shared_x_probe rc $? [$SECONDS s]"

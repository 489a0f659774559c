#!/usr/bin/env bash
# Installs tcsparse's build dependencies from Debian's packages (the CUDA toolkit itself is
# expected at /usr/local/cuda or on PATH). Safe to run again: installs only what is missing.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(cmake ninja-build g++ clang libclang-rt-dev libomp-dev zlib1g-dev
          libgtest-dev libcli11-dev nlohmann-json3-dev libfmt-dev python3 python3-matplotlib
          python3-dev python3-venv)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] ||
  { echo "install-deps: nvcc not found: install the CUDA toolkit (12.x or 13.x)" >&2; exit 1; }

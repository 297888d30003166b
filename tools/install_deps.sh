#!/usr/bin/env bash
# Installs, with apt-get, the Debian packages polka needs that are not there yet.
# Needs root (or sudo) only when something is missing. Arguments name more packages to
# install (tests/fuzz/run.sh: clang and its libFuzzer runtime).
set -euo pipefail
packages=(build-essential cmake pkg-config openmpi-bin libopenmpi-dev libopenblas-dev
          liblapacke-dev libhdf5-openmpi-dev libcmocka-dev librandom123-dev libigraph-dev
          libmetis-dev zlib1g-dev libsvm-tools procps python3 python3-numpy python3-h5py python3-matplotlib
          python3-pandas python3-xarray python3-networkx python3-pytest # the Python package (python/)
          slurm-wlm munge
          libhdf5-dev "$@") # serial HDF5 beside the parallel one: tests/install/configure_hdf5_test.sh
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

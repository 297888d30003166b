#!/usr/bin/env bash
# Builds polka against dependencies in non-standard prefixes, the way a cluster's modules or
# Spack provide them: copies of Debian's parallel HDF5 and OpenBLAS (library and headers)
# under a temporary folder, found only through the documented variables HDF5_ROOT,
# BLA_VENDOR and BLAS_ROOT / LAPACK_ROOT. Prints what CMake found, the libraries the built
# polka loads, its --version and a short 2-rank run. Extra arguments go to cmake.
#
#   tools/nonstandard_prefix.sh           Environment: MPIEXEC [mpirun]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
arch=$(gcc -print-multiarch)
# HDF5 1.10 of Debian's libhdf5-openmpi-dev, as if installed in $work/hdf5 (no h5pcc there).
mkdir -p "$work/hdf5/include" "$work/hdf5/lib"
cp -rL /usr/include/hdf5/openmpi/. "$work/hdf5/include/"
hdf5_so=$(readlink -f "/usr/lib/$arch/hdf5/openmpi/libhdf5.so")
hdf5_soname=$(objdump -p "$hdf5_so" | awk '/SONAME/ { print $2 }')
cp "$hdf5_so" "$work/hdf5/lib/$hdf5_soname"
ln -s "$hdf5_soname" "$work/hdf5/lib/libhdf5.so"
# OpenBLAS (with its LAPACK) of libopenblas-pthread-dev, as if installed in $work/openblas.
mkdir -p "$work/openblas/include" "$work/openblas/lib"
cp /usr/include/"$arch"/openblas-pthread/{cblas.h,openblas_config.h} "$work/openblas/include/"
cp "$(readlink -f "/usr/lib/$arch/openblas-pthread/libopenblas.so")" "$work/openblas/lib/libopenblas.so.0"
ln -s libopenblas.so.0 "$work/openblas/lib/libopenblas.so"

echo "== cmake -DHDF5_ROOT=\$work/hdf5 -DBLA_VENDOR=OpenBLAS -DBLAS_ROOT=\$work/openblas -DLAPACK_ROOT=\$work/openblas"
cmake -S "$root" -B "$work/build" -DPOLKA_TESTS=OFF -DHDF5_ROOT="$work/hdf5" -DBLA_VENDOR=OpenBLAS \
    -DBLAS_ROOT="$work/openblas" -DLAPACK_ROOT="$work/openblas" "$@" |
    grep -E "Found (HDF5|BLAS|LAPACK)" | sed "s|$work|\$work|g"
grep -E "^(CBLAS_INCLUDE_DIR|HDF5_C_INCLUDE_DIR|HDF5_IS_PARALLEL)[:=]" "$work/build/CMakeCache.txt" |
    sed "s|$work|\$work|g"
cmake --build "$work/build" --target polka -j"$(nproc)" >/dev/null
echo "== the built polka loads"
ldd "$work/build/polka" >"$work/ldd"
grep -E "hdf5|openblas" "$work/ldd" | sed "s|$work|\$work|g; s/ (0x[0-9a-f]*)//"
for lib in hdf5/lib/libhdf5 openblas/lib/libopenblas; do
    grep -q "=> $work/$lib" "$work/ldd" || { echo "FAIL: polka does not load $lib from \$work"; exit 1; }
done
echo "== polka --version"
"$work/build/polka" --version
echo "== a short run on 2 ranks"
${MPIEXEC:-mpirun} --oversubscribe -n 2 "$work/build/polka" run --quiet --config \
    "$root/experiments/configs/decentralized_multidist.ini" --set net.graph=complete \
    --set data.n_train=400 --set data.n_test=200 --set run.output="$work/run.h5" | grep summary

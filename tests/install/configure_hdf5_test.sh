#!/usr/bin/env bash
# configure_hdf5_test.sh SOURCE_DIR: with Debian's serial and parallel HDF5 installed side by
# side, (1) a plain configure picks the parallel one, (2) a configure pointed at the serial
# h5cc stops with one message naming the variables to set, and (3) re-running that build
# directory with HDF5_C_COMPILER_EXECUTABLE=h5pcc links the parallel library, not the serial
# one FindHDF5 had cached. "Parallel" = the library has H5Pset_fapl_mpio.
set -euo pipefail
source=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
h5cc=$(command -v h5cc) || fail "no serial h5cc (Debian: libhdf5-dev)"
h5pcc=$(command -v h5pcc) || fail "no h5pcc (Debian: libhdf5-openmpi-dev)"
"$h5cc" -showconfig | grep -Eq "Parallel HDF5: no" || fail "$h5cc is not serial"
configure() { cmake -S "$source" -B "$1" -DPOLKA_TESTS=OFF "${@:2}" >"$1.log" 2>&1; }
linked_parallel() { # the HDF5 library the build directory $1 links has MPI-IO
    local lib
    lib=$(sed -n 's/^HDF5_C_LIBRARY_hdf5:FILEPATH=//p' "$1/CMakeCache.txt")
    echo "$1: links $lib"
    nm -D "$lib" >"$1.symbols"
    grep -Eq " T H5Pset_fapl_mpio(@|$)" "$1.symbols"
}

configure "$work/default" || { cat "$work/default.log"; fail "default configure"; }
linked_parallel "$work/default" || fail "the default configure took the serial HDF5"

configure "$work/serial" -DHDF5_C_COMPILER_EXECUTABLE="$h5cc" && fail "a serial HDF5 was accepted"
sed -n '/CMake Error/,/^Call Stack/p' "$work/serial.log"
tr -s ' \n' ' ' <"$work/serial.log" | grep -q "HDF5_IS_PARALLEL is false.*-DHDF5_C_COMPILER_EXECUTABLE=/path/to/h5pcc or -DHDF5_ROOT=" ||
    fail "the message does not name HDF5_IS_PARALLEL and the variables to set"

configure "$work/serial" -DHDF5_C_COMPILER_EXECUTABLE="$h5pcc" || { cat "$work/serial.log"; fail "re-run with h5pcc"; }
linked_parallel "$work/serial" || fail "the re-run kept the serial HDF5 it had cached"
echo "serial HDF5 refused, parallel HDF5 found by default and after the hint"

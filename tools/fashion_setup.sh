# Sourced by the Fashion-MNIST scripts once they have set root: installs the dataset when it
# is missing (need_fashion_mnist.sh), builds a source tree unless POLKA names a binary, runs
# BLAS on one thread (and mpirun as root), and locates polka (locate.sh: polka, outdir).
"$root/tools/need_fashion_mnist.sh"
if [ -f "$root/CMakeLists.txt" ] && [ -z "${POLKA:-}" ]; then # a source tree: build it
    "$root/tools/install_deps.sh"
    "$root/tools/build.sh"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
. "$root/tools/locate.sh"

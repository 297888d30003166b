# Finds what polka links the way HPC codes do, so that a cluster's modules or a Spack prefix
# work as well as Debian's packages. The variables that point the build at another prefix
# (docs/guide.md, "Building and installing elsewhere"):
#   MPI          MPI_HOME, or MPI_C_COMPILER=/path/mpicc
#   HDF5         HDF5_ROOT=/prefix, or HDF5_C_COMPILER_EXECUTABLE=/path/h5pcc (must be parallel)
#   BLAS/LAPACK  BLA_VENDOR (OpenBLAS, FlexiBLAS, Intel10_64lp, FLAME, ...), BLAS_ROOT /
#                LAPACK_ROOT or CMAKE_PREFIX_PATH; CBLAS_INCLUDE_DIR when cblas.h is elsewhere
#   LAPACKE      LAPACKE_ROOT (or LAPACKE_LIBRARY, LAPACKE_INCLUDE_DIR)
#   igraph       PKG_CONFIG_PATH (it ships only a pkg-config file)
#   zlib         ZLIB_ROOT;  Random123  CMAKE_PREFIX_PATH (a header-only library)
#   METIS        METIS_ROOT or CMAKE_PREFIX_PATH (metis.h, libmetis)
# Defines the interface targets polka::blas (BLAS, LAPACK, LAPACKE, cblas.h) and polka::hdf5,
# and POLKA_HAVE_OPENBLAS when the BLAS is OpenBLAS (openblas_get_config exists).
include(CheckSymbolExists)

find_package(MPI REQUIRED COMPONENTS C)

# Debian installs serial and MPI HDF5 side by side (h5cc and h5pcc); the parallel one wins.
if(NOT DEFINED HDF5_PREFER_PARALLEL)
  set(HDF5_PREFER_PARALLEL ON)
endif()
find_package(HDF5 REQUIRED COMPONENTS C)
if(NOT HDF5_IS_PARALLEL)
  string(CONCAT _polka_why
    "polka needs a parallel (MPI) HDF5, but the HDF5 ${HDF5_VERSION} found is serial "
    "(HDF5_IS_PARALLEL is false; headers ${HDF5_INCLUDE_DIRS}, wrapper "
    "'${HDF5_C_COMPILER_EXECUTABLE}'). Point the build at a parallel one with "
    "-DHDF5_C_COMPILER_EXECUTABLE=/path/to/h5pcc or -DHDF5_ROOT=/its/prefix, e.g. for "
    "Debian's libhdf5-openmpi-dev -DHDF5_C_COMPILER_EXECUTABLE=/usr/bin/h5pcc.openmpi")
  # Forget what FindHDF5 cached of the serial one, so that a re-run with a hint finds it anew.
  get_cmake_property(_polka_cached CACHE_VARIABLES)
  foreach(_var IN LISTS _polka_cached)
    if(_var MATCHES "^HDF5_.*(LIBRARY|INCLUDE_DIR|COMPILER_EXECUTABLE)")
      unset(${_var} CACHE)
    endif()
  endforeach()
  message(FATAL_ERROR "${_polka_why}")
endif()
add_library(polka_hdf5 INTERFACE)
target_include_directories(polka_hdf5 INTERFACE ${HDF5_INCLUDE_DIRS})
target_compile_definitions(polka_hdf5 INTERFACE ${HDF5_DEFINITIONS})
target_link_libraries(polka_hdf5 INTERFACE ${HDF5_LIBRARIES})
add_library(polka::hdf5 ALIAS polka_hdf5)

find_package(BLAS REQUIRED)
find_package(LAPACK REQUIRED)
# cblas.h: beside the BLAS library's prefix first (a module or Spack prefix), then the system;
# Debian's OpenBLAS keeps its own under include/<arch>/openblas-<threading>.
set(_polka_blas_libdirs "")
set(_polka_blas_hints "")
foreach(_lib IN LISTS BLAS_LIBRARIES)
  if(IS_ABSOLUTE "${_lib}")
    get_filename_component(_dir "${_lib}" DIRECTORY)
    list(APPEND _polka_blas_libdirs "${_dir}")
    list(APPEND _polka_blas_hints "${_dir}/../include")
  endif()
endforeach()
set(_polka_blas_suffixes openblas)
foreach(_threading pthread openmp serial)
  list(APPEND _polka_blas_suffixes ${CMAKE_LIBRARY_ARCHITECTURE}/openblas-${_threading})
endforeach()
find_path(CBLAS_INCLUDE_DIR cblas.h HINTS ${_polka_blas_hints} PATH_SUFFIXES ${_polka_blas_suffixes})
if(NOT CBLAS_INCLUDE_DIR)
  message(FATAL_ERROR "cblas.h not found for the BLAS ${BLAS_LIBRARIES}: set CBLAS_INCLUDE_DIR")
endif()

# LAPACKE: some LAPACKs carry it (MKL, some OpenBLAS builds), others need liblapacke.
set(CMAKE_REQUIRED_LIBRARIES ${LAPACK_LIBRARIES})
check_symbol_exists(LAPACKE_dpotrf "" POLKA_LAPACK_HAS_LAPACKE)
unset(CMAKE_REQUIRED_LIBRARIES)
set(_polka_lapacke "")
if(NOT POLKA_LAPACK_HAS_LAPACKE)
  find_library(LAPACKE_LIBRARY lapacke HINTS ${LAPACKE_ROOT} ENV LAPACKE_ROOT ${_polka_blas_libdirs}
               PATH_SUFFIXES lib lib64)
  if(NOT LAPACKE_LIBRARY)
    message(FATAL_ERROR "LAPACKE not found (neither in ${LAPACK_LIBRARIES} nor as liblapacke): "
                        "set LAPACKE_ROOT or LAPACKE_LIBRARY")
  endif()
  set(_polka_lapacke ${LAPACKE_LIBRARY})
endif()
find_path(LAPACKE_INCLUDE_DIR lapacke.h HINTS ${LAPACKE_ROOT} ENV LAPACKE_ROOT ${CBLAS_INCLUDE_DIR}
          ${_polka_blas_hints} PATH_SUFFIXES include ${_polka_blas_suffixes})
if(NOT LAPACKE_INCLUDE_DIR)
  message(FATAL_ERROR "lapacke.h not found: set LAPACKE_ROOT or LAPACKE_INCLUDE_DIR")
endif()

set(CMAKE_REQUIRED_INCLUDES ${CBLAS_INCLUDE_DIR})
set(CMAKE_REQUIRED_LIBRARIES ${BLAS_LIBRARIES})
check_symbol_exists(openblas_get_config cblas.h POLKA_HAVE_OPENBLAS)
unset(CMAKE_REQUIRED_INCLUDES)
unset(CMAKE_REQUIRED_LIBRARIES)

add_library(polka_blas INTERFACE)
target_include_directories(polka_blas INTERFACE ${CBLAS_INCLUDE_DIR} ${LAPACKE_INCLUDE_DIR})
target_link_libraries(polka_blas INTERFACE ${_polka_lapacke} ${LAPACK_LIBRARIES} ${BLAS_LIBRARIES})
if(POLKA_HAVE_OPENBLAS)
  target_compile_definitions(polka_blas INTERFACE POLKA_HAVE_OPENBLAS=1)
endif()
add_library(polka::blas ALIAS polka_blas)
# What `polka --version` says of a BLAS that cannot describe itself.
if(BLA_VENDOR)
  set(POLKA_BLAS_DESCRIPTION "${BLA_VENDOR}: ${BLAS_LIBRARIES}")
else()
  set(POLKA_BLAS_DESCRIPTION "${BLAS_LIBRARIES}")
endif()

find_package(ZLIB REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(IGRAPH REQUIRED IMPORTED_TARGET igraph)
find_path(RANDOM123_INCLUDE_DIR Random123/philox.h REQUIRED)
# net.placement = partition: METIS's k-way partitioning of the agent graph
find_path(METIS_INCLUDE_DIR metis.h HINTS ${METIS_ROOT} ENV METIS_ROOT PATH_SUFFIXES include
          REQUIRED)
find_library(METIS_LIBRARY metis HINTS ${METIS_ROOT} ENV METIS_ROOT PATH_SUFFIXES lib lib64
             REQUIRED)
find_library(MATH_LIBRARY m REQUIRED)

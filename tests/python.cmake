# The Python package's tests (tests/python/test_*.py, pytest, in one process so that the run
# files their fixtures make are made once): the build tree's package (BUILD/python) and
# polka, which makes the run files they read.
polka_add_test(NAME python_package
         COMMAND ${POLKA_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/python
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/python)
# The package is Python, the same in the plain and the sanitizer pass; the polka it drives is
# tested under ASan by the rest of the suite.
set_tests_properties(python_package PROPERTIES TIMEOUT 300 LABELS "python;no_asan" ENVIRONMENT
  "POLKA_BUILD_DIR=${PROJECT_BINARY_DIR};MPIEXEC=${POLKA_MPIEXEC};PYTHONDONTWRITEBYTECODE=1;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1")

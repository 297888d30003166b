# Building and installing as a cluster user would.
find_program(POLKA_MPIEXEC NAMES mpiexec mpirun REQUIRED)
set(POLKA_INSTALL_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1")

# Installed into a temporary prefix, polka runs (2 ranks, through the installed Slurm script)
# and reports from there, with nothing from the source or build tree.
polka_add_test(NAME install_prefix_run COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install/install_test.sh
                                         ${PROJECT_BINARY_DIR} ${POLKA_MPIEXEC})

# --help, polka help KEY, the man page and the key names of the README and the guide agree with
# the key table.
polka_add_test(NAME help_keys_agree COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/help_keys_test.sh
                                      $<TARGET_FILE:polka> ${PROJECT_BINARY_DIR}/polka.1
                                      ${PROJECT_SOURCE_DIR}/README.md
                                      ${PROJECT_SOURCE_DIR}/docs/guide.md)
polka_add_test(NAME help_unknown_key COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh
                                       "'learner.kpp' is neither a key nor a section"
                                       $<TARGET_FILE:polka> help learner.kpp)
# docs/keys.md is what polka_man --markdown writes from the key table (keys_doc_current; it
# names `cmake --build BUILD --target polka_keys_doc` when not), and the check refuses a copy
# with one key renamed (keys_doc_stale_fails).
polka_add_test(NAME keys_doc_current COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/keys_doc_test.sh
                                       $<TARGET_FILE:polka_man> ${PROJECT_SOURCE_DIR}/docs/keys.md
                                       ${PROJECT_BINARY_DIR})
polka_add_test(NAME keys_doc_stale_fails
               COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh
                       "regenerate it: cmake --build .+ --target polka_keys_doc$"
                       bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/keys_doc_test.sh $<TARGET_FILE:polka_man>
                       ${PROJECT_SOURCE_DIR}/docs/keys.md ${PROJECT_BINARY_DIR} --rename learner.kp)
set_tests_properties(keys_doc_current keys_doc_stale_fails PROPERTIES LABELS quick TIMEOUT 60)

# A serial HDF5 is a clear configure error; the parallel one is found beside it by default.
polka_add_test(NAME configure_hdf5_parallel COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install/configure_hdf5_test.sh
                                              ${PROJECT_SOURCE_DIR})

# HDF5 and OpenBLAS copied under a temporary prefix, found through HDF5_ROOT and BLAS_ROOT.
polka_add_test(NAME configure_nonstandard_prefix COMMAND bash
                                                   ${PROJECT_SOURCE_DIR}/tools/nonstandard_prefix.sh)
set_tests_properties(install_prefix_run configure_nonstandard_prefix PROPERTIES
                     ENVIRONMENT "${POLKA_INSTALL_ENV};MPIEXEC=${POLKA_MPIEXEC}" TIMEOUT 600)
set_tests_properties(configure_hdf5_parallel PROPERTIES TIMEOUT 300)
# They configure and build polka again (or install it): the sanitizer pass of run_all.sh skips
# them, since the code they run is the same as in the plain pass and the rest of the suite.
set_tests_properties(install_prefix_run configure_hdf5_parallel configure_nonstandard_prefix
                     PROPERTIES LABELS no_asan)

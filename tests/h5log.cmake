# The HDF5 run file (src/io/h5log*.c) and `polka report`.
#   h5log_npK        test_h5log under mpiexec -n K: writes, reads back and checks two files
#   h5log_py_npK     tests/python/check_h5.py reads the same files with h5py
#   h5log_rff_npK    test_h5log_rff: random-feature models (src/io/h5log_rff.c,
#                    h5log_read_rff.c), agents dealt round-robin to the ranks, read back in C
#   h5log_rff_py_npK tests/python/check_rff_h5.py: h5py, the Python package, polka predict and
#                    polka report on that file
#   h5log_kill       a writer killed with SIGKILL leaves a readable file (tests/mpi/h5_kill_test.sh)
#   h5log_report_*   `polka report` on a good file and on bad ones
add_executable(test_h5log mpi/test_h5log.c)
target_include_directories(test_h5log PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(test_h5log PRIVATE polka_par)
add_executable(test_h5log_rff mpi/test_h5log_rff.c)
target_link_libraries(test_h5log_rff PRIVATE polka_par)

if(MPIEXEC_EXECUTABLE)
  set(H5LOG_MPIEXEC ${MPIEXEC_EXECUTABLE})
else()
  set(H5LOG_MPIEXEC mpiexec)
endif()
set(H5LOG_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1")
set(H5LOG_DIR ${CMAKE_CURRENT_BINARY_DIR}/h5log)

# The system python, with h5py and numpy (a pyenv python on PATH may lack them).
set(POLKA_H5PY_PYTHON /usr/bin/python3 CACHE FILEPATH "A python with h5py and numpy")
execute_process(COMMAND ${POLKA_H5PY_PYTHON} -c "import h5py, numpy"
                RESULT_VARIABLE H5LOG_NO_H5PY OUTPUT_QUIET ERROR_QUIET)
if(H5LOG_NO_H5PY)
  message(STATUS "h5py not found for ${POLKA_H5PY_PYTHON}: the h5py checks of run files are skipped")
endif()

foreach(np 1 2 3)
  foreach(kind "" _rff)
    polka_add_test(NAME h5log${kind}_np${np}
             COMMAND ${H5LOG_MPIEXEC} --oversubscribe -n ${np} $<TARGET_FILE:test_h5log${kind}>
                     ${H5LOG_DIR}/${kind}np${np})
    set_tests_properties(h5log${kind}_np${np} PROPERTIES ENVIRONMENT "${H5LOG_ENV}" TIMEOUT 120
                         PASS_REGULAR_EXPRESSION "PASS: 0 failure"
                         FIXTURES_SETUP h5log${kind}_files_np${np})
  endforeach()
  if(NOT H5LOG_NO_H5PY)
    polka_add_test(NAME h5log_py_np${np}
             COMMAND ${POLKA_H5PY_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_h5.py
                     ${H5LOG_DIR}/np${np} ${np})
    polka_add_test(NAME h5log_rff_py_np${np}
             COMMAND ${POLKA_H5PY_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_rff_h5.py
                     ${H5LOG_DIR}/_rffnp${np} $<TARGET_FILE:polka>)
    set_tests_properties(h5log_py_np${np} PROPERTIES TIMEOUT 60
                         FIXTURES_REQUIRED h5log_files_np${np})
    set_tests_properties(h5log_rff_py_np${np} PROPERTIES TIMEOUT 60
                         FIXTURES_REQUIRED h5log_rff_files_np${np} ENVIRONMENT
                         "PYTHONPATH=${PROJECT_BINARY_DIR}/python;OPENBLAS_NUM_THREADS=1")
  endif()
endforeach()

if(NOT H5LOG_NO_H5PY)
  polka_add_test(NAME h5log_kill
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/mpi/h5_kill_test.sh ${H5LOG_MPIEXEC}
                   $<TARGET_FILE:test_h5log> ${POLKA_H5PY_PYTHON}
                   ${CMAKE_CURRENT_SOURCE_DIR}/python/check_h5.py)
  set_tests_properties(h5log_kill PROPERTIES ENVIRONMENT "${H5LOG_ENV}" TIMEOUT 120)
endif()

# `polka report`: the table of a good run, one message for a bad file.
polka_add_test(NAME h5log_report COMMAND $<TARGET_FILE:polka> report ${H5LOG_DIR}/np2/split.h5
                                   ${H5LOG_DIR}/np1/root.h5)
set_tests_properties(h5log_report PROPERTIES ENVIRONMENT "${H5LOG_ENV}" TIMEOUT 60
                     FIXTURES_REQUIRED "h5log_files_np1;h5log_files_np2"
                     PASS_REGULAR_EXPRESSION
                     "split.h5 +decentralized +7 +5 +50 +accuracy +4030.25 +4000.25 +4060.25 +4034.25 +4033.25 +4063.25 +0.0860744 +564.935 +- +- +- +- +- +- +- +- +-\n")
polka_add_test(NAME h5log_report_partial COMMAND $<TARGET_FILE:polka> report ${H5LOG_DIR}/np2/partial.h5)
set_tests_properties(h5log_report_partial PROPERTIES ENVIRONMENT "${H5LOG_ENV}" TIMEOUT 60
                     FIXTURES_REQUIRED h5log_files_np2
                     PASS_REGULAR_EXPRESSION
                     "partial.h5 +centralized +7 +2 +20 +mse +2 +0.5 +3.5 +- +- +- +- +- +- +- +- +- +- +- +- +- +-\n")
polka_add_test(NAME h5log_report_not_hdf5
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh
                 "^polka report: '.*h5log.cmake' is not an HDF5 file$"
                 $<TARGET_FILE:polka> report ${CMAKE_CURRENT_SOURCE_DIR}/h5log.cmake)
polka_add_test(NAME h5log_report_missing
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh
                 "^polka report: cannot open run file 'no/such/run.h5': No such file"
                 $<TARGET_FILE:polka> report no/such/run.h5)
set_tests_properties(h5log_report_not_hdf5 h5log_report_missing PROPERTIES
                     ENVIRONMENT "${H5LOG_ENV}" TIMEOUT 60)


# The HDF5 run file (src/io/runfile_*.c) and `polka report`.
#   runfile_writer_npK        test_runfile under mpiexec -n K: writes, reads back and checks two files
#   runfile_writer_py_npK     tests/python/check_h5.py reads the same files with h5py
#   runfile_writer_rff_npK    test_runfile_rff: random-feature models (src/io/runfile_writer_rff.c,
#                    runfile_writer_read_rff.c), agents dealt round-robin to the ranks, read back in C
#   runfile_writer_rff_py_npK tests/python/check_rff_h5.py: h5py, the Python package, polka predict and
#                    polka report on that file
#   runfile_writer_kill       a writer killed with SIGKILL leaves a readable file (tests/mpi/h5_kill_test.sh)
#   runfile_writer_report_*   `polka report` on a good file and on bad ones
add_executable(test_runfile mpi/test_runfile.c)
target_include_directories(test_runfile PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(test_runfile PRIVATE polka_par)
add_executable(test_runfile_rff mpi/test_runfile_rff.c)
target_link_libraries(test_runfile_rff PRIVATE polka_par)

if(MPIEXEC_EXECUTABLE)
  set(RUNFILE_MPIEXEC ${MPIEXEC_EXECUTABLE})
else()
  set(RUNFILE_MPIEXEC mpiexec)
endif()
set(RUNFILE_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1")
set(RUNFILE_DIR ${CMAKE_CURRENT_BINARY_DIR}/runfile_writer)

# The system python, with h5py and numpy (a pyenv python on PATH may lack them).
set(POLKA_H5PY_PYTHON /usr/bin/python3 CACHE FILEPATH "A python with h5py and numpy")
execute_process(COMMAND ${POLKA_H5PY_PYTHON} -c "import h5py, numpy"
                RESULT_VARIABLE RUNFILE_NO_H5PY OUTPUT_QUIET ERROR_QUIET)
if(RUNFILE_NO_H5PY)
  message(STATUS "h5py not found for ${POLKA_H5PY_PYTHON}: the h5py checks of run files are skipped")
endif()

foreach(np 1 2 3)
  foreach(kind "" _rff)
    polka_add_test(NAME runfile_writer${kind}_np${np}
             COMMAND ${RUNFILE_MPIEXEC} --oversubscribe -n ${np} $<TARGET_FILE:test_runfile${kind}>
                     ${RUNFILE_DIR}/${kind}np${np})
    set_tests_properties(runfile_writer${kind}_np${np} PROPERTIES ENVIRONMENT "${RUNFILE_ENV}" TIMEOUT 120
                         PASS_REGULAR_EXPRESSION "PASS: 0 failure"
                         FIXTURES_SETUP runfile_writer${kind}_files_np${np})
  endforeach()
  if(NOT RUNFILE_NO_H5PY)
    polka_add_test(NAME runfile_writer_py_np${np}
             COMMAND ${POLKA_H5PY_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_h5.py
                     ${RUNFILE_DIR}/np${np} ${np})
    polka_add_test(NAME runfile_writer_rff_py_np${np}
             COMMAND ${POLKA_H5PY_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_rff_h5.py
                     ${RUNFILE_DIR}/_rffnp${np} $<TARGET_FILE:polka>)
    set_tests_properties(runfile_writer_py_np${np} PROPERTIES TIMEOUT 60
                         FIXTURES_REQUIRED runfile_writer_files_np${np})
    set_tests_properties(runfile_writer_rff_py_np${np} PROPERTIES TIMEOUT 60
                         FIXTURES_REQUIRED runfile_writer_rff_files_np${np} ENVIRONMENT
                         "PYTHONPATH=${PROJECT_BINARY_DIR}/python;OPENBLAS_NUM_THREADS=1")
  endif()
endforeach()

if(NOT RUNFILE_NO_H5PY)
  polka_add_test(NAME runfile_writer_kill
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/mpi/h5_kill_test.sh ${RUNFILE_MPIEXEC}
                   $<TARGET_FILE:test_runfile> ${POLKA_H5PY_PYTHON}
                   ${CMAKE_CURRENT_SOURCE_DIR}/python/check_h5.py)
  set_tests_properties(runfile_writer_kill PROPERTIES ENVIRONMENT "${RUNFILE_ENV}" TIMEOUT 120)
endif()

# `polka report`: the table of a good run, one message for a bad file.
polka_add_test(NAME runfile_writer_report COMMAND $<TARGET_FILE:polka> report ${RUNFILE_DIR}/np2/split.h5
                                   ${RUNFILE_DIR}/np1/root.h5)
set_tests_properties(runfile_writer_report PROPERTIES ENVIRONMENT "${RUNFILE_ENV}" TIMEOUT 60
                     FIXTURES_REQUIRED "runfile_writer_files_np1;runfile_writer_files_np2"
                     PASS_REGULAR_EXPRESSION
                     "split.h5 +decentralized +7 +5 +50 +accuracy +4030.25 +4000.25 +4060.25 +4034.25 +4033.25 +4063.25 +0.0860744 +564.935 +- +- +- +- +- +- +- +- +-\n")
polka_add_test(NAME runfile_writer_report_partial COMMAND $<TARGET_FILE:polka> report ${RUNFILE_DIR}/np2/partial.h5)
set_tests_properties(runfile_writer_report_partial PROPERTIES ENVIRONMENT "${RUNFILE_ENV}" TIMEOUT 60
                     FIXTURES_REQUIRED runfile_writer_files_np2
                     PASS_REGULAR_EXPRESSION
                     "partial.h5 +centralized +7 +2 +20 +mse +2 +0.5 +3.5 +- +- +- +- +- +- +- +- +- +- +- +- +- +-\n")
polka_add_test(NAME runfile_writer_report_not_hdf5
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh
                 "^polka report: '.*runfile_writer.cmake' is not an HDF5 file$"
                 $<TARGET_FILE:polka> report ${CMAKE_CURRENT_SOURCE_DIR}/runfile_writer.cmake)
polka_add_test(NAME runfile_writer_report_missing
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh
                 "^polka report: cannot open run file 'no/such/run.h5': No such file"
                 $<TARGET_FILE:polka> report no/such/run.h5)
set_tests_properties(runfile_writer_report_not_hdf5 runfile_writer_report_missing PROPERTIES
                     ENVIRONMENT "${RUNFILE_ENV}" TIMEOUT 60)


# Signals stop every kind of run promptly: a batch learner, the
# data scan, a long KOMP step, a wait on a stopped rank, and a second SIGINT (signal_stop_test.sh).
# Their bounds are the signalled process's CPU time after the signal, and they wait for states,
# not fixed times (signal_stop_test.sh, proc_clock.sh): a loaded machine does not turn them red,
# so they run beside the other tests. The sanitizer pass skips them (ASan stretches the work
# they bound). signal_stop_wait stops rank 1 after the first row, away from HDF5's collective
# calls, which cannot poll (a rank stopped inside one is left there until the 45 s last resort).
foreach(mode slkl scan komp wait sigint2)
  polka_add_test(NAME signal_stop_${mode} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/signal_stop_test.sh
                                            ${mode} $<TARGET_FILE:polka>
                                            ${CMAKE_CURRENT_BINARY_DIR}/signals/${mode})
  set_tests_properties(signal_stop_${mode} PROPERTIES TIMEOUT 120 LABELS "mpi_timing;no_asan")
endforeach()

# data.storage: LIBSVM data stored dense and sparse give the same runs and
# predictions byte for byte (h5py), and the 27-byte file of a huge dimension is refused
# clearly under a memory limit (ulimit -v, which ASan's shadow memory cannot take: no_asan).
if(NOT RUNFILE_NO_H5PY)
  foreach(part compare huge)
    polka_add_test(NAME sparse_storage_${part}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/sparse_storage_test.sh $<TARGET_FILE:polka>
                     ${POLKA_MPIEXEC} ${POLKA_H5PY_PYTHON}
                     ${CMAKE_CURRENT_BINARY_DIR}/runs/sparse_${part} ${part})
    set_tests_properties(sparse_storage_${part} PROPERTIES TIMEOUT 180
                         ENVIRONMENT "${POLKA_MPI_ENV}")
  endforeach()
  set_tests_properties(sparse_storage_huge PROPERTIES LABELS no_asan)
endif()

# data.memory: the automatic limit is the node's memory shared by its ranks.
polka_add_test(NAME data_memory_per_rank
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/data_memory_test.sh $<TARGET_FILE:polka>
                 ${POLKA_MPIEXEC} ${CMAKE_CURRENT_BINARY_DIR}/runs/data_memory)
set_tests_properties(data_memory_per_rank PROPERTIES TIMEOUT 120 ENVIRONMENT "${POLKA_MPI_ENV}")

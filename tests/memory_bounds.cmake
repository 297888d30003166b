# Allocations sized by the settings are bounded like the data's:
# fault.delay = 1000 on 256 agents of a complete graph (2.7 GB before) is refused against
# data.memory at start-up, naming the delay.
polka_add_test(NAME memory_fault_delay COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh
         "fault.delay = 1000 keeps 1001 rounds of values in flight per edge: the 256 agents of this process would take [0-9.]+ MB for them, over the memory limit of 512.0 MB"
         $<TARGET_FILE:polka> run --quiet --set net.agents=256 --set net.graph=complete
         --set fault.delay=1000 --set data.n_train=2560 --set data.memory=512M
         --set run.output=${CMAKE_CURRENT_BINARY_DIR}/fault_delay_refused.h5)
set_tests_properties(memory_fault_delay PROPERTIES ENVIRONMENT OPENBLAS_NUM_THREADS=1)

polka_unit_test(test_slkl unit/test_slkl.c)

# SLKL and KRR through `polka run`: run file, saved model, predict, against each other.
polka_add_test(NAME batch_learners_run COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/batch_learners_test.sh
         $<TARGET_FILE:polka> /usr/bin/python3 ${CMAKE_CURRENT_BINARY_DIR}/runs/batch)
set_tests_properties(batch_learners_run PROPERTIES TIMEOUT 120)
polka_cli_fails(slkl_decentralized "use run.mode = centralized" ${POLKA_BIN} run
                --set learner.control=slkl)
polka_cli_fails(slkl_loss "set learner.loss = square" ${POLKA_BIN} run --centralized
                --set learner.control=krr)
polka_cli_fails(slkl_nu "learner.nu > 0" ${POLKA_BIN} run --centralized --set learner.control=slkl
                --set learner.loss=square --set data.source=sinc)

polka_unit_test(test_refit unit/test_refit.c)

# The final refit's settings through `polka run`: one clear refusal each.
polka_cli_fails(refit_decentralized "use run.mode = centralized" ${POLKA_BIN} run
                --set learner.refit=1e-6)
polka_cli_fails(refit_iterations_alone "needs learner.refit > 0" ${POLKA_BIN} run --centralized
                --set learner.refit_iterations=3)
polka_cli_fails(refit_iterations_regression "classification loss only" ${POLKA_BIN} run
                --centralized --set data.source=sinc --set learner.loss=square
                --set learner.refit=1e-6 --set learner.refit_iterations=2)
polka_cli_fails(refit_negative "learner.refit" ${POLKA_BIN} run --centralized
                --set learner.refit=-1)
polka_cli_fails(refit_batch "slkl and krr fit in batch" ${POLKA_BIN} run --centralized
                --set data.source=sinc --set learner.loss=square --set learner.control=krr
                --set learner.refit=1e-6)
polka_cli_fails(refit_method "net.method = penalty" ${POLKA_BIN} run --centralized
                --set net.method=dkla --set learner.refit=1e-6)

# learner.refit_memory: the same run with the kernel rows kept as with them recomputed.
polka_add_test(NAME refit_cache_same_run
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/refit_cache_test.sh $<TARGET_FILE:polka>
                 /usr/bin/python3 ${CMAKE_CURRENT_BINARY_DIR}/runs/refit_cache)
set_tests_properties(refit_cache_same_run PROPERTIES ENVIRONMENT "OPENBLAS_NUM_THREADS=1")

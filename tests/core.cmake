polka_unit_test(test_kernel_loss unit/test_kernel_loss.c)
polka_unit_test(test_komp unit/test_komp.c)
polka_unit_test(test_data_config unit/test_data_config.c)
polka_unit_test(test_rff unit/test_rff.c)
# The experiment's defaults: DKLA and COKE reach the centralized random-feature solution
# (exit status 1 otherwise).
polka_add_test(NAME dkla_convergence COMMAND dkla_convergence every=100)
set_tests_properties(dkla_convergence PROPERTIES TIMEOUT 120 ENVIRONMENT OPENBLAS_NUM_THREADS=1)

polka_unit_test(test_learners unit/test_learners.c)
polka_unit_test(test_state unit/test_state.c)

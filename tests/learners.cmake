polka_unit_test(test_learners test_learners.c)
polka_unit_test(test_state test_state.c)

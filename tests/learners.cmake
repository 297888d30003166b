polka_unit_test(test_learners test_learners.c)

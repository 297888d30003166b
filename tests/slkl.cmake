polka_unit_test(test_slkl test_slkl.c)

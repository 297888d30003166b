polka_unit_test(test_kernel_loss test_kernel_loss.c)
polka_unit_test(test_komp test_komp.c)
polka_unit_test(test_data_config test_data_config.c)

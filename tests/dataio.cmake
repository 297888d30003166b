# The data file readers (IDX, LIBSVM, CSV): read back, label maps, statistics, scaling, errors.
# The Fashion-MNIST case is skipped unless /usr/share/datasets/fashion-mnist is installed.
polka_unit_test(test_dataio test_dataio.c dataio_files.c)
polka_unit_test(test_dataio_limits test_dataio_limits.c dataio_files.c)
polka_unit_test(test_dataio_sparse test_dataio_sparse.c dataio_files.c)

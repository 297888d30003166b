# The data file readers (IDX, LIBSVM, CSV): read back, label maps, statistics, scaling, errors.
# The Fashion-MNIST case is skipped unless /usr/share/datasets/fashion-mnist is installed.
polka_unit_test(test_dataio unit/test_dataio.c unit/dataio_files.c)
polka_unit_test(test_dataio_limits unit/test_dataio_limits.c unit/dataio_files.c)
polka_unit_test(test_dataio_sparse unit/test_dataio_sparse.c unit/dataio_files.c)
# Partial reads: a read keeping some samples of a plain file reads only their bytes.
polka_unit_test(test_dataio_seek unit/test_dataio_seek.c unit/dataio_files.c)
# A LIBSVM file of 2^24 features: its scan and scaling keep statistics only
# for the features that occur, under a 100 MB address-space limit (the program needs < 40 MB;
# each dense array of the dimension takes 128 MB, and the info's four and the scaling's three
# took 550 MB to 1 GB before). Not limited under ASan, whose shadow memory needs terabytes of
# address space (ASAN_OPTIONS is set for that pass).
polka_unit_executable(test_dataio_wide unit/test_dataio_wide.c unit/dataio_files.c)
polka_add_test(NAME test_dataio_wide COMMAND sh -c
         "[ -n \"$ASAN_OPTIONS\" ] || ulimit -v 100000 && exec \"$0\""
         $<TARGET_FILE:test_dataio_wide>)
set_tests_properties(test_dataio_wide PROPERTIES TIMEOUT 60 ENVIRONMENT OPENBLAS_NUM_THREADS=1)

# Runs on data files: equal to the generator, saved models predict what they predicted,
# bad files stop every rank with one message naming the file and line.
polka_add_test(NAME file_source_predict COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/predict_test.sh
         $<TARGET_FILE:polka> /usr/bin/python3 ${CMAKE_CURRENT_BINARY_DIR}/runs/predict)
set_tests_properties(file_source_predict PROPERTIES TIMEOUT 120)
polka_mpi_fails(file_bad_line 2 "bad_line.svm:2:" --set data.source=file
                --set data.train=${TDATA}/bad_line.svm --set data.test=${TDATA}/bad_line.svm --set net.graph=line)
polka_mpi_fails(file_dimension_mismatch 2 "three_dim.svm.t:1:" --set data.source=file
                --set data.train=${TDATA}/two_dim.svm --set data.test=${TDATA}/three_dim.svm.t
                --set net.graph=line)
polka_mpi_fails(file_missing 2 "no/such/train.svm" --set data.source=file
                --set data.train=no/such/train.svm --set data.test=no/such/test.svm --set net.graph=line)
polka_mpi_fails(file_no_test 2 "needs data.train and data.test" --set data.source=file
                --set data.train=${TDATA}/two_dim.svm)
polka_cli_fails(predict_missing_run "no/such/run.h5" ${POLKA_BIN} predict --model no/such/run.h5
                --data ${TDATA}/two_dim.svm)
# A test (or predict) file without samples fails like an empty training file, not "0 of 0".
polka_mpi_fails(file_empty_test 2 "comments_only.svm: no samples in the file" --set data.source=file
                --set data.train=${TDATA}/two_dim.svm --set data.test=${TDATA}/comments_only.svm
                --set net.graph=line)
polka_add_test(NAME file_empty_predict_model COMMAND ${POLKA_BIN} run --quiet --set data.n_train=200
         --set data.n_test=50 --set run.output=${CMAKE_CURRENT_BINARY_DIR}/empty_data.h5)
set_tests_properties(file_empty_predict_model PROPERTIES FIXTURES_SETUP empty_data_model)
polka_cli_fails(predict_empty_data "comments_only.svm: no samples in the file" ${POLKA_BIN} predict
                --model ${CMAKE_CURRENT_BINARY_DIR}/empty_data.h5 --data ${TDATA}/comments_only.svm)
set_tests_properties(cli_predict_empty_data PROPERTIES FIXTURES_REQUIRED empty_data_model)
# A test CSV whose header names the training columns in another order would swap features.
polka_mpi_fails(file_csv_header_mismatch 2 "x2_x1.csv:1: column 1 is 'x2', but in the training file '.*x1_x2.csv' it is 'x1'"
                --set data.source=file --set data.train=${TDATA}/x1_x2.csv
                --set data.test=${TDATA}/x2_x1.csv --set net.graph=line --set learner.loss=hinge)
# Each rank reads only its agents' samples of a plain LIBSVM or IDX file: runs on 1, 2 and 3
# ranks (both placements, iid and dirichlet splits) equal the run on a gzipped copy, read whole.
polka_add_test(NAME file_partial_read COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/mpi/partial_read_test.sh
         $<TARGET_FILE:polka> ${POLKA_MPIEXEC})
set_tests_properties(file_partial_read PROPERTIES TIMEOUT 300)

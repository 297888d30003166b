# Runs on data files: equal to the generator, saved models predict what they predicted,
# bad files stop every rank with one message naming the file and line.
add_test(NAME file_source_predict COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/predict_test.sh
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

# polka predict on run files changed after the run, on runs whose loss has parameters, and
# its usage errors: one clear message, or the score the run logged.
foreach(case outputs config nonfinite losses format)
  add_test(NAME predict_${case} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/predict_checks.sh
           ${POLKA_BIN} /usr/bin/python3 ${CMAKE_CURRENT_BINARY_DIR}/runs/predict_checks ${case})
  set_tests_properties(predict_${case} PROPERTIES TIMEOUT 120)
endforeach()

polka_cli_fails(predict_unknown_option "^polka predict: unknown argument '--bogus' \\(see polka --help\\)"
                ${POLKA_BIN} predict --model x.h5 --data x.svm --bogus)
polka_cli_fails(predict_missing_value "^polka predict: option --data needs a value"
                ${POLKA_BIN} predict --model x.h5 --data)
polka_cli_fails(predict_missing_model "^polka predict: needs --model RUN.h5 and --data FILE"
                ${POLKA_BIN} predict --data x.svm)
polka_cli_fails(predict_unknown_format "^polka predict: unknown data format 'svm'"
                ${POLKA_BIN} predict --model x.h5 --data x.svm --format svm)
polka_cli_fails(data_unknown_set "^polka data: unknown data set 'bogus' \\(multidist, split\\)"
                ${POLKA_BIN} data bogus -o x.svm)
polka_cli_fails(data_missing_set "^polka data: missing the data set \\(multidist\\) or split" ${POLKA_BIN} data)

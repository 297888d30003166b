# polka predict on run files changed after the run, on runs whose loss has parameters, and
# its usage errors: one clear message, or the score the run logged.
foreach(case outputs config nonfinite losses format unit_norm)
  polka_add_test(NAME predict_${case} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/predict_checks.sh
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

# polka predict --output follows the rule of polka/paths.h: it never names the run
# file, the data it reads or the run's own data files, however spelled (one message naming
# both, before anything is written); predictions go through a temporary name
# (paths_test.sh checks the inputs' bytes and that no temporary file is left).
set(PREDICT_PATHS ${CMAKE_CURRENT_BINARY_DIR}/runs/predict_paths)
polka_add_test(NAME predict_paths_make COMMAND sh -c
         "rm -rf ${PREDICT_PATHS} && mkdir -p ${PREDICT_PATHS}/sub && cd ${PREDICT_PATHS} && \
          ln -s tr.svm.t link.svm && \
          $<TARGET_FILE:polka> data multidist -o tr.svm --set data.n_train=200 \
            --set data.n_test=50 >/dev/null && \
          $<TARGET_FILE:polka> run --quiet --set data.source=file --set data.train=tr.svm \
            --set data.test=tr.svm.t --set run.log_every=100 --set run.output=run.h5 >/dev/null")
set_tests_properties(predict_paths_make PROPERTIES FIXTURES_SETUP predict_paths
                     ENVIRONMENT OPENBLAS_NUM_THREADS=1)
# predict_output_refused(NAME OUTPUT MESSAGE): --output OUTPUT is refused with MESSAGE.
function(predict_output_refused name output message)
  polka_add_test(NAME predict_output_${name} COMMAND sh ${EXPECT_FAIL}
           "^polka predict: ${message} are the same file: the output would overwrite the input$"
           ${POLKA_BIN} predict --model run.h5 --data tr.svm.t --output ${output}
           WORKING_DIRECTORY ${PREDICT_PATHS})
  set_tests_properties(predict_output_${name} PROPERTIES FIXTURES_REQUIRED predict_paths
                       ENVIRONMENT OPENBLAS_NUM_THREADS=1)
endfunction()
predict_output_refused(model ./run.h5 "--output '\\./run.h5' and --model 'run.h5'")
predict_output_refused(data link.svm "--output 'link.svm' and --data 'tr.svm.t'")
predict_output_refused(run_train sub/../tr.svm "--output 'sub/\\.\\./tr.svm' and data.train 'tr.svm'")

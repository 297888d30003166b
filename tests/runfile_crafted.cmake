# polka report and polka predict on damaged run files (tests/python/craft_runfiles.py makes them with
# h5py): each is refused with one message naming the damage, or read as what it is.
set(CRAFT_DIR ${CMAKE_CURRENT_BINARY_DIR}/crafted)
polka_add_test(NAME crafted_make COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/python/craft_runfiles.py
                                   ${CRAFT_DIR})
set_tests_properties(crafted_make PROPERTIES FIXTURES_SETUP crafted_files)

# crafted_fails(NAME REGEX COMMAND...): COMMAND fails with one polka line matching REGEX.
function(crafted_fails name regex)
  polka_add_test(NAME crafted_${name} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh ${regex} ${ARGN}
           WORKING_DIRECTORY ${CRAFT_DIR})
  set_tests_properties(crafted_${name} PROPERTIES FIXTURES_REQUIRED crafted_files)
endfunction()

set(POLKA $<TARGET_FILE:polka>)
crafted_fails(agents_overflow "attribute 'agents' on /metrics is 2305843009213693952, outside"
              ${POLKA} report agents_overflow.h5)
crafted_fails(metrics_1d "metric 'test_score' is not rows × 1000 agents" ${POLKA} report metrics_1d.h5)
crafted_fails(model_huge "model 'dictionary' declares 2147483648 × 8589934592 values"
              ${POLKA} predict --model model_huge.h5 --data data.svm)
crafted_fails(kernel_type "attribute 'kernel' has a damaged string type"
              ${POLKA} predict --model kernel_type.h5 --data data.svm)
crafted_fails(heap_loop_predict "run file 'heap_loop.h5' not read within 3 s"
              ${POLKA} predict --read-timeout 3 --model heap_loop.h5 --data data.svm)
crafted_fails(heap_loop_report "run file 'heap_loop.h5' not read within 2 s"
              ${POLKA} report --read-timeout 2 heap_loop.h5)
crafted_fails(degree_wrap "attribute 'degree' on /models/agent_0000 is 4294967299, outside \\[1, 64\\]"
              ${POLKA} predict --model degree_wrap.h5 --data data.svm)
crafted_fails(chunk_huge "metric 'wall_time' declares 4227858432 bytes of storage, more than the whole file"
              ${POLKA} report chunk_huge.h5)
crafted_fails(read_timeout_bad "--read-timeout: '1x' is not a number of seconds"
              ${POLKA} predict --read-timeout 1x --model zero_rows.h5 --data data.svm)
# A model without dictionary rows is valid: it predicts 0 (UBSan used to flag memcpy(NULL)).
polka_add_test(NAME crafted_zero_rows COMMAND ${POLKA} predict --model zero_rows.h5 --data data.svm
         WORKING_DIRECTORY ${CRAFT_DIR})
set_tests_properties(crafted_zero_rows PROPERTIES FIXTURES_REQUIRED crafted_files
                     PASS_REGULAR_EXPRESSION "^mse 0.91666666666666663 on 3 samples .*model order 0")

# Nothing written is ever lost: the rule over a command's files, temporary
# names, locks (test_paths, cmocka), and every case of paths_test.sh against the built binary
# (exit codes, one message naming both files, the inputs' bytes unchanged).
polka_unit_test(test_paths unit/test_paths.c)
polka_add_test(NAME paths_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/paths_test.sh
         $<TARGET_FILE:polka> /usr/bin/python3 ${CMAKE_CURRENT_BINARY_DIR}/paths)
set_tests_properties(paths_cli PROPERTIES TIMEOUT 300 PASS_REGULAR_EXPRESSION "[0-9]+ passed, 0 failed")

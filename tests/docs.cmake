# The documentation's commands (tests/python/doc_commands.py): every sh and python block of
# README.md and docs/guide.md, run in order in a scratch folder with every polka run made small.
#   guide_commands        docs/guide.md as it is: exit 1 naming the first block that fails.
#   readme_commands       README.md likewise.
#   doc_commands_refuses  the checker itself: a guide whose command uses a renamed key is
#                         refused, the same guide spelled right passes.
# The sanitizer pass skips guide_commands and readme_commands (no_asan): they check that the
# documented commands work, and every polka code path they reach runs under ASan in the test
# of its own feature (runs, sweeps, report, predict, codecs, faults, events, checkpoints).
foreach(doc guide:docs/guide.md readme:README.md)
  string(REPLACE ":" ";" doc "${doc}")
  list(GET doc 0 name)
  list(GET doc 1 file)
  polka_add_test(NAME ${name}_commands
                 COMMAND ${POLKA_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/doc_commands.py
                         --polka $<TARGET_FILE:polka> --source ${PROJECT_SOURCE_DIR}
                         --python ${PROJECT_BINARY_DIR}/python --interpreter ${POLKA_PYTHON}
                         ${PROJECT_SOURCE_DIR}/${file})
  set_tests_properties(${name}_commands PROPERTIES LABELS "docs;no_asan" TIMEOUT 600 PROCESSORS 2)
endforeach()
polka_add_test(NAME doc_commands_refuses
               COMMAND ${POLKA_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/doc_commands.py
                       --self-test --polka $<TARGET_FILE:polka> --source ${PROJECT_SOURCE_DIR}
                       --interpreter ${POLKA_PYTHON})
set_tests_properties(doc_commands_refuses PROPERTIES LABELS "quick;docs" TIMEOUT 60)

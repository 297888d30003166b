# The learners of the papers side by side (NORMA, BSGD, NBSGD, POLK, SGD): a table program.
add_executable(learners_table experiments/learners_table.c)
target_include_directories(learners_table PRIVATE src bench ${RANDOM123_INCLUDE_DIR})
target_link_libraries(learners_table PRIVATE polka_core)

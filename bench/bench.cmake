# The C micro-benchmarks (bench/README.md). Included from the top-level CMakeLists.txt:
# include(bench/bench.cmake); the programs land in the build folder (build/bench_komp, ...).
add_executable(bench_komp ${PROJECT_SOURCE_DIR}/bench/bench_komp.c)
target_include_directories(bench_komp PRIVATE ${PROJECT_SOURCE_DIR}/src ${RANDOM123_INCLUDE_DIR})
target_link_libraries(bench_komp PRIVATE polka_core)

add_executable(bench_fashion ${PROJECT_SOURCE_DIR}/bench/bench_fashion.c)
target_link_libraries(bench_fashion PRIVATE polka_core)

add_executable(bench_kernel ${PROJECT_SOURCE_DIR}/bench/bench_kernel.c)
target_include_directories(bench_kernel PRIVATE ${PROJECT_SOURCE_DIR}/src ${RANDOM123_INCLUDE_DIR})
target_link_libraries(bench_kernel PRIVATE polka_core)

add_executable(bench_rff_map ${PROJECT_SOURCE_DIR}/bench/bench_rff_map.c)
target_include_directories(bench_rff_map PRIVATE ${PROJECT_SOURCE_DIR}/src ${RANDOM123_INCLUDE_DIR})
target_link_libraries(bench_rff_map PRIVATE polka_core)

add_executable(bench_startup ${PROJECT_SOURCE_DIR}/bench/bench_startup.c)
target_include_directories(bench_startup PRIVATE ${PROJECT_SOURCE_DIR}/src ${RANDOM123_INCLUDE_DIR})
target_link_libraries(bench_startup PRIVATE polka_par)

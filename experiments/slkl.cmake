# SLKL against kernel ridge regression on the sinc set of [MPARG11] (experiments/slkl_sinc.c).
# Included from the top-level CMakeLists.txt: include(experiments/slkl.cmake)
add_executable(slkl_sinc ${PROJECT_SOURCE_DIR}/experiments/slkl_sinc.c)
target_include_directories(slkl_sinc PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/bench
                          ${RANDOM123_INCLUDE_DIR})
target_link_libraries(slkl_sinc PRIVATE polka_core)

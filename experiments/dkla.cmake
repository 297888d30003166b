# DKLA and COKE against the centralized random-feature solution (experiments/dkla_convergence.c).
# Included from the top-level CMakeLists.txt: include(experiments/dkla.cmake)
add_executable(dkla_convergence ${PROJECT_SOURCE_DIR}/experiments/dkla_convergence.c)
target_link_libraries(dkla_convergence PRIVATE polka_par)

# The fuzz script's split of the run-file target's faults into libhdf5's and polka's own
# (tests/fuzz/upstream.awk), on sample sanitizer and libFuzzer reports.
polka_add_test(NAME fuzz_upstream_classify COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/upstream_test.sh)

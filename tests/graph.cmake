# The graph module: unit tests, and the `polka graph` command.
polka_unit_test(test_graph unit/test_graph.c)

# ---- `polka graph` from the command line -------------------------------------------------
set(GRAPH_CLI_DIR ${CMAKE_CURRENT_BINARY_DIR}/graph_cli)
file(MAKE_DIRECTORY ${GRAPH_CLI_DIR})
file(WRITE ${GRAPH_CLI_DIR}/selfloop.txt "0 1\n1 2\n2 2\n")
file(WRITE ${GRAPH_CLI_DIR}/duplicate.txt "# nodes: 3\n0 1\n1 2\n\n2 1 {'weight': 0.5}\n")
file(WRITE ${GRAPH_CLI_DIR}/networkx.txt "0 1 {}\n1 2 {'weight': 0.5}\n2 0 {'color': 'red'}\n")
file(WRITE ${GRAPH_CLI_DIR}/parts.txt "0 1\n2 3\n")

# expect.sh WANT_RC STREAM PATTERN COMMAND ARGS...: runs COMMAND and passes only when it
# exits with WANT_RC and STREAM (stdout or stderr) contains PATTERN (a fixed string); when
# WANT_RC is 1, stderr must also hold exactly one `polka graph:` line.
file(WRITE ${GRAPH_CLI_DIR}/expect.sh [=[
want_rc=$1; stream=$2; pattern=$3; shift 3
out=$(mktemp) || exit 1
err=$(mktemp) || exit 1
"$@" >"$out" 2>"$err"
rc=$?
cat "$out"
cat "$err" >&2
status=0
if [ "$rc" -ne "$want_rc" ]; then
    echo "FAIL: exit code $rc, expected $want_rc" >&2; status=1
fi
if [ "$stream" = stderr ]; then file=$err; else file=$out; fi
if ! grep -F -q -e "$pattern" "$file"; then
    echo "FAIL: $stream lacks '$pattern'" >&2; status=1
fi
if [ "$want_rc" -eq 1 ] && [ "$(grep -c '^polka graph:' "$err")" -ne 1 ]; then
    echo "FAIL: stderr does not hold exactly one 'polka graph:' line" >&2; status=1
fi
rm -f "$out" "$err"
exit $status
]=])

# graph_cli_test(NAME WANT_RC STREAM PATTERN ARGS...): `polka ARGS...` checked by expect.sh.
function(graph_cli_test name want_rc stream pattern)
  polka_add_test(NAME graph_cli_${name}
           COMMAND sh ${GRAPH_CLI_DIR}/expect.sh ${want_rc} ${stream} ${pattern}
                   $<TARGET_FILE:polka> ${ARGN}
           WORKING_DIRECTORY ${GRAPH_CLI_DIR})
  set_tests_properties(graph_cli_${name} PROPERTIES TIMEOUT 60)
endfunction()

graph_cli_test(help 0 stdout "polka graph generate --kind KIND" graph --help)
graph_cli_test(usage 2 stderr "unknown option '--bogus'" graph generate --kind er --n 8 --bogus 1 -o x.txt)
graph_cli_test(not_applicable 2 stderr "--p does not apply to --kind ring" graph generate --kind ring --n 8 --p 0.5 -o x.txt)
# the kinds an option applies to come from the generator table
graph_cli_test(not_applicable_k 2 stderr "--k does not apply to --kind grid (only to smallworld, ba)"
               graph generate --kind grid --n 16 --k 3 -o x.txt)
graph_cli_test(help_kinds 0 stdout "grid, torus: the shape, R*C = N" graph --help)
# polka --help prints the generator and control tables
graph_cli_test(run_help_generators 0 stdout "k neighbours each side (2k < n), rewired (net.k, net.rewire" --help)
graph_cli_test(run_help_controls 0 stdout "  nbsgd-project  NBSGD: project" --help)
graph_cli_test(info_ok 0 stdout "algebraic connectivity: 0.5857864376"
               graph info ${PROJECT_SOURCE_DIR}/graphs/ring_8.txt)
graph_cli_test(info_networkx 0 stdout "file weights:           min 0.5, max 1" graph info networkx.txt)
graph_cli_test(info_disconnected 0 stdout "connected:              no (2 components)" graph info parts.txt)
graph_cli_test(info_selfloop 1 stderr "polka graph: selfloop.txt:3: self loop 2-2" graph info selfloop.txt)
graph_cli_test(info_duplicate 1 stderr "duplicate.txt:5: duplicate edge 2-1 (first on line 3)"
               graph info duplicate.txt)
graph_cli_test(info_missing 1 stderr "cannot open graph file 'missing.txt': No such file or directory"
               graph info missing.txt)
graph_cli_test(generate_bad_n 1 stderr "number of nodes n = 1" graph generate --kind line --n 1 -o x.txt)
graph_cli_test(generate_bad_p 1 stderr "p = 1.5 is not in (0, 1]" graph generate --kind er --n 8 --p 1.5 -o x.txt)
graph_cli_test(generate_bad_grid 1 stderr "rows x cols (3 x 0) must equal n = 16"
               graph generate --kind grid --n 16 --rows 3 -o x.txt)

# generate, then read back what was written.
graph_cli_test(generate_er 0 stdout "wrote er.txt: er, 24 nodes"
               graph generate --kind er --n 24 --p 0.15 --seed 5 --connected -o er.txt)
graph_cli_test(generate_er_info 0 stdout "connected:              yes" graph info er.txt)
set_tests_properties(graph_cli_generate_er PROPERTIES FIXTURES_SETUP graph_cli_er)
set_tests_properties(graph_cli_generate_er_info PROPERTIES FIXTURES_REQUIRED graph_cli_er)

# --join: ER of mean degree 2.5 (hundreds of components) joined into one, refused for a ring.
graph_cli_test(generate_joined 0 stdout "wrote joined.txt: er, 5000 nodes"
               graph generate --kind er --n 5000 --p 0.0005 --join -o joined.txt)
graph_cli_test(generate_joined_info 0 stdout "connected:              yes" graph info joined.txt)
set_tests_properties(graph_cli_generate_joined PROPERTIES FIXTURES_SETUP graph_cli_joined)
set_tests_properties(graph_cli_generate_joined_info PROPERTIES FIXTURES_REQUIRED graph_cli_joined)
graph_cli_test(generate_join_ring 1 stderr "joining the components applies to the random kinds only"
               graph generate --kind ring --n 8 --join -o x.txt)

# Every graph shipped in graphs/ reads and is connected.
file(GLOB GRAPH_FILES ${PROJECT_SOURCE_DIR}/graphs/*.txt)
foreach(file ${GRAPH_FILES})
  get_filename_component(stem ${file} NAME_WLE)
  graph_cli_test(files_${stem} 0 stdout "connected:              yes" graph info ${file})
endforeach()

# The diameter of large graphs: a path of 10^6 edges (a BFS from every node took an hour) is
# a tree, exact by a double sweep; a ring of 40000 nodes gets bounds.
graph_cli_test(generate_path 0 stdout "wrote path.txt" graph generate --kind line --n 1000001 -o path.txt)
graph_cli_test(info_path 0 stdout "diameter:               1000000" graph info path.txt)
graph_cli_test(generate_big_ring 0 stdout "wrote big_ring.txt" graph generate --kind ring --n 40000 -o big_ring.txt)
graph_cli_test(info_big_ring 0 stdout "diameter:               between 20000 and 40000 (two BFS"
               graph info big_ring.txt)
set_tests_properties(graph_cli_generate_path graph_cli_generate_big_ring PROPERTIES
                     FIXTURES_SETUP graph_cli_big)
set_tests_properties(graph_cli_info_path graph_cli_info_big_ring PROPERTIES
                     FIXTURES_REQUIRED graph_cli_big)

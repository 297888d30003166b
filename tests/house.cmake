# A tree checker's two tests, in the quick tier: NAME_hold runs tests/python/SCRIPT.py on the
# repository, exit 0 when the tree keeps the rule; NAME_check_refuses runs its --self-test, which
# shows it failing on small trees built for it.
function(polka_checker_tests name script)
    set(checker ${CMAKE_CURRENT_SOURCE_DIR}/python/${script}.py)
    polka_add_test(NAME ${name}_hold COMMAND ${POLKA_PYTHON} ${checker} --root ${PROJECT_SOURCE_DIR})
    polka_add_test(NAME ${name}_check_refuses COMMAND ${POLKA_PYTHON} ${checker} --self-test)
    set_tests_properties(${name}_hold ${name}_check_refuses PROPERTIES LABELS quick TIMEOUT 60
                         ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
endfunction()

# The house's floors (tests/python/floors_check.py): no file of src/ or include/ includes a header of
# a floor above its own, in the order of the ```floors block of docs/design.md.
#   floors_hold           the tree as it is: exit 1 naming each include that runs upward.
#   floors_check_refuses  the checker itself, on a small tree it builds in a temporary folder:
#                         exit 1 naming the one unlawful include's file and line, 0 once it is
#                         removed, 2 for a folder the floors block does not list.
polka_checker_tests(floors floors_check)

# Citations (tests/python/citations_check.py): papers by their key in docs/references.md, issues
# by what they stood for.
#   citations_hold           the tree as it is: exit 1 naming each "paper 00N" or issue number
#                            anywhere (NUMBERS_EXEMPT lists the files exempt, none
#                            today) and each key used anywhere that docs/references.md does not define.
#   citations_check_refuses  the checker itself, on a small tree it builds in a temporary folder:
#                            exit 1 naming a paper's number, an issue's and an undefined key, 0
#                            once they cite by key, 1 for a key defined twice, 2 without
#                            docs/references.md.
polka_checker_tests(citations citations_check)

# The map (tests/python/design_map_check.py): the ```map block of docs/design.md names every
# folder under src/ and every public header, at the floor floors_check gives it.
#   design_map_hold            the tree as it is: exit 1 naming each folder or header missing
#                              from the map, each entry gone from the tree, each file name a
#                              folder's entry names that the folder does not hold, and each
#                              header listed at another floor.
#   design_map_check_refuses   the checker itself, on a small tree it builds in a temporary
#                              folder: 0 for the right map, 1 naming each kind of finding, 2
#                              without a map block.
polka_checker_tests(design_map design_map_check)

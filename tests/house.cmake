# The house's floors (tests/python/floors_check.py): no file of src/ or include/ includes a header of
# a floor above its own, in the order of the ```floors block of docs/design.md.
#   floors_hold           the tree as it is: exit 1 naming each include that runs upward.
#   floors_check_refuses  the checker itself, on a small tree it builds in a temporary folder:
#                         exit 1 naming the one unlawful include's file and line, 0 once it is
#                         removed, 2 for a folder the floors block does not list.
polka_add_test(NAME floors_hold
               COMMAND ${POLKA_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/floors_check.py
                       --root ${PROJECT_SOURCE_DIR})
polka_add_test(NAME floors_check_refuses
               COMMAND ${POLKA_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/floors_check.py --self-test)
set_tests_properties(floors_hold floors_check_refuses PROPERTIES LABELS quick TIMEOUT 60
                     ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)

# Citations (tests/python/citations_check.py): papers by their key in docs/references.md, issues
# by what they stood for.
#   citations_hold           the tree as it is: exit 1 naming each "paper 00N" or issue number
#                            outside the files it exempts (NUMBERS_EXEMPT: README.md, docs/*.md)
#                            and each key used anywhere that docs/references.md does not define.
#   citations_check_refuses  the checker itself, on a small tree it builds in a temporary folder:
#                            exit 1 naming a paper's number, an issue's and an undefined key, 0
#                            once they cite by key, 1 for a key defined twice, 2 without
#                            docs/references.md.
polka_add_test(NAME citations_hold
               COMMAND ${POLKA_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/citations_check.py
                       --root ${PROJECT_SOURCE_DIR})
polka_add_test(NAME citations_check_refuses
               COMMAND ${POLKA_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/citations_check.py
                       --self-test)
set_tests_properties(citations_hold citations_check_refuses PROPERTIES LABELS quick TIMEOUT 60
                     ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)

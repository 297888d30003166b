# INI config files (polka run --config). Uses POLKA_BIN and polka_cli_fails from cli.cmake.
# An indented line is a key of its own: inih, the parser polka used before, took it as more of the value
# of the key above it (its multi-line values cannot be switched off).
set(CONFIG_DATA ${CMAKE_CURRENT_SOURCE_DIR}/data)
polka_cli_fails(config_indented_unknown_key "indented_unknown.ini:4: unknown key 'learner.sigmaa'"
                ${POLKA_BIN} run --config ${CONFIG_DATA}/indented_unknown.ini)
polka_add_test(NAME config_indented_keys COMMAND ${POLKA_BIN} run --quiet --config
         ${CONFIG_DATA}/indented_keys.ini)
set_tests_properties(config_indented_keys PROPERTIES PASS_REGULAR_EXPRESSION
                     "rounds 100, samples 100")

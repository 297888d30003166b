# The Python package (python/polka): run files as pandas and xarray, `polka run` from Python.
#   build tree: BUILD/python/polka, copied at every build, with _where.py naming BUILD's polka:
#               PYTHONPATH=BUILD/python /usr/bin/python3 -c 'import polka'
#   install:    PREFIX/POLKA_INSTALL_PYTHONDIR/polka, _where.py naming PREFIX/bin/polka
#               (relative, so a copied prefix still finds its own)
# POLKA_INSTALL_PYTHONDIR defaults to lib/python3.X/dist-packages, X of POLKA_PYTHON: Debian's
# python reads it under /usr and /usr/local (other prefixes: PYTHONPATH, see docs/guide.md).
set(POLKA_PYTHON /usr/bin/python3 CACHE FILEPATH
    "The python with numpy, h5py, pandas, xarray, networkx, matplotlib (Debian's)")
execute_process(COMMAND ${POLKA_PYTHON} -c "import sys; print('%d.%d' % sys.version_info[:2])"
                OUTPUT_VARIABLE _polka_python_version OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE _polka_python_failed ERROR_QUIET)
if(_polka_python_failed)
  message(STATUS "${POLKA_PYTHON} does not run: the Python package installs to lib/python3/dist-packages")
  set(_polka_python_version 3)
endif()
set(POLKA_INSTALL_PYTHONDIR lib/python${_polka_python_version}/dist-packages CACHE STRING
    "Where cmake --install puts the Python package polka, relative to the prefix")

file(GLOB POLKA_PYTHON_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/polka/*.py)
set(POLKA_PYTHON_BUILD_DIR ${PROJECT_BINARY_DIR}/python/polka)
add_custom_target(polka_python ALL
                  COMMAND ${CMAKE_COMMAND} -E make_directory ${POLKA_PYTHON_BUILD_DIR}
                  COMMAND ${CMAKE_COMMAND} -E copy_if_different ${POLKA_PYTHON_SOURCES}
                          ${POLKA_PYTHON_BUILD_DIR}
                  COMMENT "Copying the Python package to ${POLKA_PYTHON_BUILD_DIR}" VERBATIM)
file(GENERATE OUTPUT ${POLKA_PYTHON_BUILD_DIR}/_where.py
     CONTENT "\"\"\"The polka binary of this build (written by cmake/PolkaPython.cmake).\"\"\"\nPOLKA = \"$<TARGET_FILE:polka>\"\n")

install(FILES ${POLKA_PYTHON_SOURCES} DESTINATION ${POLKA_INSTALL_PYTHONDIR}/polka)
install(PROGRAMS experiments/quickstart_figure.py experiments/sweep_frame.py
                 experiments/open_timing.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/polka/experiments)
# At install time (so that --prefix and DESTDIR are honoured): the package's _where.py gets
# the installed bin/polka relative to the package, and the installed tools/locate.sh the
# package's folder relative to share/polka (where the scripts find plot_cli.py).
install(CODE "
  set(_prefix \"\${CMAKE_INSTALL_PREFIX}\")
  function(polka_absolute out dir)
    if(IS_ABSOLUTE \"\${dir}\")
      set(\${out} \"\${dir}\" PARENT_SCOPE)
    else()
      set(\${out} \"\${_prefix}/\${dir}\" PARENT_SCOPE)
    endif()
  endfunction()
  polka_absolute(_package \"${POLKA_INSTALL_PYTHONDIR}/polka\")
  polka_absolute(_bindir \"${CMAKE_INSTALL_BINDIR}\")
  polka_absolute(_datadir \"${POLKA_INSTALL_DATADIR}\")
  file(RELATIVE_PATH _binary \"\${_package}\" \"\${_bindir}/polka\")
  file(WRITE \"\$ENV{DESTDIR}\${_package}/_where.py\"
       \"\\\"\\\"\\\"The installed polka, relative to this folder (cmake --install).\\\"\\\"\\\"\\nPOLKA = \\\"\${_binary}\\\"\\n\")
  get_filename_component(_site \"\${_package}\" DIRECTORY)
  file(RELATIVE_PATH _pythondir \"\${_datadir}\" \"\${_site}\")
  set(_locate \"\$ENV{DESTDIR}\${_datadir}/tools/locate.sh\")
  file(READ \"\${_locate}\" _text)
  string(REPLACE \"\\ninstalled_pythondir=\\n\" \"\\ninstalled_pythondir='\${_pythondir}'\\n\" _new \"\${_text}\")
  if(_new STREQUAL _text)
    message(FATAL_ERROR \"\${_locate}: no line 'installed_pythondir=' to record the package's folder in\")
  endif()
  file(WRITE \"\${_locate}\" \"\${_new}\")
")

# Install rules (GNU directories): `cmake --install build --prefix PREFIX` gives
#   PREFIX/bin/polka                      the command (RPATH to the libraries it was linked with)
#   PREFIX/share/man/man1/polka.1         its manual page, generated from the key table
#   PREFIX/share/polka/experiments/       configs, reproduction scripts
#   PREFIX/share/polka/tools/             what the installed scripts source or run (locate.sh, ...)
#   PREFIX/share/polka/graphs/            topology files the configs and scripts name
#   PREFIX/share/polka/slurm/             batch scripts
#   PREFIX/share/doc/polka/README.md
# The installed scripts find PREFIX/bin/polka (tools/locate.sh) and write to ./out.
set(POLKA_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/polka)

install(TARGETS polka RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_BINARY_DIR}/polka.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY experiments/configs DESTINATION ${POLKA_INSTALL_DATADIR}/experiments)
install(DIRECTORY graphs DESTINATION ${POLKA_INSTALL_DATADIR})
file(GLOB _polka_scripts ${PROJECT_SOURCE_DIR}/experiments/*.sh)
install(PROGRAMS ${_polka_scripts} DESTINATION ${POLKA_INSTALL_DATADIR}/experiments)
# Of tools/, what those scripts source or run; the rest (build.sh, install_deps.sh, the
# developers' tools) only makes sense in a source tree and stays there.
install(PROGRAMS tools/locate.sh tools/er_p.sh tools/need_fashion_mnist.sh tools/fashion_setup.sh
                 tools/fashion_split.py
        DESTINATION ${POLKA_INSTALL_DATADIR}/tools)
install(PROGRAMS slurm/run.sbatch slurm/sweep.sbatch slurm/million.sbatch slurm/launcher.sh slurm/resumable.sh
        DESTINATION ${POLKA_INSTALL_DATADIR}/slurm)

# Record where the installed files are, at install time (so --prefix is honoured): locate.sh
# gets the bin directory relative to share/polka, the Slurm scripts share/polka itself as an
# absolute path (sbatch runs a copy of them from its spool directory).
install(CODE "
  set(_prefix \"\${CMAKE_INSTALL_PREFIX}\")
  set(_bindir \"${CMAKE_INSTALL_BINDIR}\")
  set(_datadir \"${POLKA_INSTALL_DATADIR}\")
  if(NOT IS_ABSOLUTE \"\${_bindir}\")
    set(_bindir \"\${_prefix}/\${_bindir}\")
  endif()
  if(NOT IS_ABSOLUTE \"\${_datadir}\")
    set(_datadir \"\${_prefix}/\${_datadir}\")
  endif()
  file(RELATIVE_PATH _relative \"\${_datadir}\" \"\${_bindir}\")
  function(polka_record file line value)
    set(_path \"\$ENV{DESTDIR}\${_datadir}/\${file}\")
    file(READ \"\${_path}\" _text)
    string(REPLACE \"\\n\${line}=\\n\" \"\\n\${line}='\${value}'\\n\" _new \"\${_text}\")
    if(_new STREQUAL _text)
      message(FATAL_ERROR \"\${_path}: no line '\${line}=' to record the install path in\")
    endif()
    file(WRITE \"\${_path}\" \"\${_new}\")
  endfunction()
  polka_record(tools/locate.sh installed_bindir \"\${_relative}\")
  polka_record(slurm/run.sbatch installed_root \"\${_datadir}\")
  polka_record(slurm/sweep.sbatch installed_root \"\${_datadir}\")
  polka_record(slurm/million.sbatch installed_root \"\${_datadir}\")
")

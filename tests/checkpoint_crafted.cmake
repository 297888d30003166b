# Crafted and damaged checkpoints: tests/python/craft_checkpoints.py damages a good
# checkpoint as a robustness audit did, writing the digest anew where the damage is meant
# to reach the checks behind it; each is refused with one message naming the file (and the
# agent), never a hang, a crash or a 1 GB allocation. The bit flips: ckpt_bitflip_campaign.
set(CKPT_CRAFT_DIR ${CMAKE_CURRENT_BINARY_DIR}/checkpoints/crafted)
set(CKPT_CRAFT_SET --set data.n_train=800 --set run.log_every=250)
polka_add_test(NAME ckpt_crafted_make COMMAND bash -c
         "rm -rf ${CKPT_CRAFT_DIR} && mkdir -p ${CKPT_CRAFT_DIR} && cd ${CKPT_CRAFT_DIR} && \
          $<TARGET_FILE:polka> run --quiet --set data.n_train=800 --set run.log_every=250 \
            --set run.checkpoint_every=10 \
            --set run.checkpoint=good.ckpt --set run.output=good.h5 >/dev/null && \
          /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/python/craft_checkpoints.py good.ckpt .")
set_tests_properties(ckpt_crafted_make PROPERTIES FIXTURES_SETUP ckpt_crafted)

# ckpt_crafted(NAME REGEX): resuming NAME.ckpt fails with one polka line matching REGEX, within
# 60 s, under a 400 MB address-space limit (a 1 GB allocation fails the match; not under ASan,
# whose shadow memory needs terabytes of address space: ASAN_OPTIONS is set for that pass).
# Each has its own run.checkpoint: the crafted files' settings name good.ckpt, whose lock two
# of them running at once (ctest -j) contended for.
function(ckpt_crafted name regex)
  polka_add_test(NAME ckpt_crafted_${name} COMMAND sh -c
           "[ -n \"$ASAN_OPTIONS\" ] || ulimit -v 400000 && exec \"$0\" \"$@\""
           sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh "${regex}" $<TARGET_FILE:polka> run
           ${CKPT_CRAFT_SET} --resume ${name}.ckpt --set run.output=${name}.h5
           --set run.checkpoint=${name}.run.ckpt
           WORKING_DIRECTORY ${CKPT_CRAFT_DIR})
  set_tests_properties(ckpt_crafted_${name} PROPERTIES FIXTURES_REQUIRED ckpt_crafted TIMEOUT 90)
endfunction()
set(AGENT0 "cannot resume from '[a-z_0-9]+.ckpt': agent 0: the checkpoint's")
ckpt_crafted(order_huge "${AGENT0} model order 9223372036854775809 is not the count of its squared norms \\(115\\)")
ckpt_crafted(next_log "cannot resume from 'next_log.ckpt': its next log step \\(-1e\\+300 samples\\) does not follow its round 790")
ckpt_crafted(komp_pos "${AGENT0} KOMP position 5 \\(1000000000000\\) is outside its [0-9]+ entries")
ckpt_crafted(komp_ld "${AGENT0} KOMP span 33554432 says its inverse once took 1688849860 MB, more than this process may take")
ckpt_crafted(nan_weights "${AGENT0} model holds a non-finite number \\(its run had diverged before the checkpoint was written\\)")
ckpt_crafted(counter "${AGENT0} 'agent.value_age_count' is -1, not a finite count")
ckpt_crafted(type "${AGENT0} 'agent.time_compute' holds uint64 values, this run needs float64")
ckpt_crafted(history "cannot resume from 'history.ckpt': its metric row 0 is of round 1e\\+300")
ckpt_crafted(declared_huge "cannot resume from 'declared_huge.ckpt': its dataset 'history/metrics' is not an array a checkpoint holds")
ckpt_crafted(gzip "cannot resume from 'gzip.ckpt': its dataset 'agents/states' is not an array a checkpoint holds")
ckpt_crafted(flipped "cannot resume from 'flipped.ckpt': the state of agent 0 does not match the digest written with it \\(the file is damaged\\)")
ckpt_crafted(span "cannot resume from 'span.ckpt': agents/offset and agents/length \\(not a polka checkpoint, or damaged\\)")
ckpt_crafted(unpack "cannot resume from 'unpack.ckpt': the state of agent 0 is not one polka writes \\(damaged\\)")
ckpt_crafted(no_digest "cannot resume from 'no_digest.ckpt': no digest")
ckpt_crafted(format_1 "cannot resume from 'format_1.ckpt': it is from an older polka \\(checkpoint format 1\\) and this polka, which reads format 4, cannot resume it")
ckpt_crafted(version "cannot resume from 'version.ckpt': written by polka 0.0.1, this is polka")

# A full disk during periodic checkpoints: warnings, the run goes on, the older checkpoint kept.
polka_add_test(NAME ckpt_full_disk COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/ckpt_full_disk_test.sh
         ${CMAKE_CURRENT_BINARY_DIR}/checkpoints/full_disk)
set_tests_properties(ckpt_full_disk PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 ENVIRONMENT
                     "POLKA=$<TARGET_FILE:polka>;PY=/usr/bin/python3;HERE=${CMAKE_CURRENT_SOURCE_DIR}")
# The checkpoint's path is checked before the run computes anything (a directory: by the
# paths rule of polka run, or polka_ckpt_check_path for the library's callers).
polka_add_test(NAME ckpt_path_missing_dir COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh
         "run.checkpoint: the directory '/nonexistent/dir' of '/nonexistent/dir/run.ckpt' does not exist"
         $<TARGET_FILE:polka> run --set run.checkpoint_every=10
         --set run.checkpoint=/nonexistent/dir/run.ckpt)
polka_add_test(NAME ckpt_path_directory COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh
         "run.checkpoint:? '${CMAKE_CURRENT_BINARY_DIR}' is a directory" $<TARGET_FILE:polka> run
         --set run.checkpoint=${CMAKE_CURRENT_BINARY_DIR})
# The data files a checkpoint was written with: a regenerated one is refused by name.
polka_add_test(NAME ckpt_inputs COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/ckpt_inputs_test.sh
         ${CMAKE_CURRENT_BINARY_DIR}/checkpoints/inputs)
set_tests_properties(ckpt_inputs PROPERTIES TIMEOUT 120 ENVIRONMENT
                     "POLKA=$<TARGET_FILE:polka>;PY=/usr/bin/python3")
# `polka run --resume FILE` alone takes the settings from the checkpoint and ends with the
# uninterrupted run's file; a setting given beside it that may change (run.output) is taken,
# one that may not is refused before anything is written (the run file its settings name,
# good.h5, is left as it was).
polka_add_test(NAME ckpt_resume_alone COMMAND bash -c
         "cd ${CKPT_CRAFT_DIR} && $<TARGET_FILE:polka> run --quiet --resume good.ckpt \
            --set run.output=alone.h5 --set run.checkpoint=alone.ckpt >/dev/null && \
          /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/python/compare_runs.py good.h5 alone.h5")
set_tests_properties(ckpt_resume_alone PROPERTIES FIXTURES_REQUIRED ckpt_crafted)
polka_add_test(NAME ckpt_resume_alone_other COMMAND bash -c
         "cd ${CKPT_CRAFT_DIR} && before=$(md5sum good.h5) && \
          sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh \"cannot resume from 'good.ckpt': it was written with another configuration: 'learner.eta = 0.5' there, 'learner.eta = 0.25' here\" \
            $<TARGET_FILE:polka> run --resume good.ckpt --set learner.eta=0.25 && \
          [ \"$(md5sum good.h5)\" = \"$before\" ] || { echo 'FAIL: the refused resume changed good.h5'; exit 1; }")
set_tests_properties(ckpt_resume_alone_other PROPERTIES FIXTURES_REQUIRED ckpt_crafted
                     DEPENDS ckpt_resume_alone)
# Single-bit flips: each damaged checkpoint is refused naming the file or
# resumes into the undamaged run's file, bit for bit; 30 here (the 1000-flip campaign:
# tests/python/ckpt_bitflip.py --flips 1000, quoted in docs/design.md).
polka_add_test(NAME ckpt_bitflip_campaign COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/python/ckpt_bitflip.py
         $<TARGET_FILE:polka> ${CMAKE_CURRENT_BINARY_DIR}/checkpoints/bitflip --flips 30 --seed 7)
set_tests_properties(ckpt_bitflip_campaign PROPERTIES TIMEOUT 300 ENVIRONMENT
                     "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")

# Checkpoints: a run interrupted at a round and resumed from its checkpoint ends
# with the run file of the uninterrupted run, field by field (checkpoint_test.sh and
# compare_runs.py: every metric row but the timers, every final model byte for byte), for
# every model-order control, centralized and decentralized, P = 1, 2, 4, many agents per rank
# and another number of ranks on resume; checkpoints that do not fit are refused clearly.
find_program(POLKA_MPIEXEC NAMES mpiexec mpirun REQUIRED) # (network.cmake comes later)
set(CKPT_DIR ${CMAKE_CURRENT_BINARY_DIR}/checkpoints)
set(CKPT_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1"
    "POLKA=$<TARGET_FILE:polka>;PY=/usr/bin/python3;MPIEXEC=${POLKA_MPIEXEC}"
    "HERE=${CMAKE_CURRENT_SOURCE_DIR}")
set(CKPT_SMALL --set data.n_train=3000 --set data.n_test=500 --set run.log_every=500)

# polka_ckpt_test(name mode ranks resume_ranks every settings...)
function(polka_ckpt_test name mode ranks resume_ranks every)
  polka_add_test(NAME ckpt_${name} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/checkpoint_test.sh ${mode}
                                     ${CKPT_DIR}/${name} ${ranks} ${resume_ranks} ${ARGN})
  set_tests_properties(ckpt_${name} PROPERTIES ENVIRONMENT "${CKPT_ENV};EVERY=${every}"
                       TIMEOUT 240)
  set(ranks_most ${ranks})
  if(resume_ranks GREATER ranks)
    set(ranks_most ${resume_ranks})
  endif()
  if(ranks_most GREATER 1)
    set_tests_properties(ckpt_${name} PROPERTIES PROCESSORS ${ranks_most})
  endif()
endfunction()

# Every control, 5 agents on 2 ranks (uneven blocks), resumed inside a pass (round 592 of 600).
foreach(control komp norma bsgd-remove bsgd-project bsgd-merge nbsgd-remove nbsgd-project)
  polka_ckpt_test(${control} periodic 2 2 37 ${CKPT_SMALL} --set net.agents=5
                  --set learner.control=${control} --set learner.budget=30 --set learner.tau=40)
endforeach()
# The suffix average and the offset carried over; the ν-trick's adapted margin.
polka_ckpt_test(suffix_offset periodic 2 2 37 ${CKPT_SMALL} --set net.agents=5
                --set learner.control=nbsgd-remove --set learner.budget=30
                --set learner.suffix=0.5 --set learner.offset=1)
polka_ckpt_test(nu_trick periodic 2 2 37 ${CKPT_SMALL} --set net.agents=5 --set net.graph=ring
                --set learner.control=norma --set learner.loss=soft-margin --set learner.nu=0.3
                --set data.classes=2)
# At a log step (every 125 rounds = 500 samples of 4 agents), two passes; P = 1 (all agents on
# one rank), P = 4 (one per rank), centralized, and resumed on 4 ranks from 2.
polka_ckpt_test(log_step_p4 periodic 4 4 125 ${CKPT_SMALL} --set run.passes=2)
polka_ckpt_test(p1 periodic 1 1 125 ${CKPT_SMALL} --set net.agents=4 --set run.passes=2)
polka_ckpt_test(central periodic 0 0 40 ${CKPT_SMALL} --centralized --set net.agents=4)
polka_ckpt_test(ranks_2_to_4 periodic 2 4 70 ${CKPT_SMALL} --set net.agents=8)
# run.log_agents: the checkpoint holds the rows of the logged agents only (3 of 10 here).
polka_ckpt_test(log_agents periodic 2 3 70 ${CKPT_SMALL} --set net.agents=10
                --set run.log_agents=3)
# the random-feature methods: their variables, duals, neighbours' last variables heard
polka_ckpt_test(coke_2_to_3 periodic 2 3 70 ${CKPT_SMALL} --set net.agents=8 --set net.method=coke
                --set net.features=64 --set fault.link_loss=0.2)
polka_ckpt_test(rf_diffusion_p1 periodic 1 1 70 ${CKPT_SMALL} --set net.agents=6
                --set net.method=rf-diffusion --set net.features=64 --set net.resample_every=9)
polka_ckpt_test(dkla_exact_sigterm signal 0 0 0 ${CKPT_SMALL} --set net.agents=4 --set net.method=dkla
                --set net.rf_solve=exact --set learner.loss=square --set data.source=sinc
                --set learner.batch=10 --set run.passes=30)
# codecs: top-k's copies on both ends (held, received) resume with the run, here
# with its kept values as int8; int8; uint8 points on a range multidist leaves now and then,
# whose points_clamped resumes with the run
polka_ckpt_test(dkla_topk_2_to_3 periodic 2 3 70 ${CKPT_SMALL} --set net.agents=8 --set net.method=dkla
                --set net.features=64 --set net.codec_vectors=top-k --set net.codec_k=0.1
                --set net.codec_kept=int8)
polka_ckpt_test(penalty_int8_p1 periodic 1 1 70 ${CKPT_SMALL} --set net.agents=6
                --set net.penalty=symmetric --set net.codec_points=int8 --set net.codec_values=float16)
polka_ckpt_test(penalty_uint8_p2 periodic 2 2 70 ${CKPT_SMALL} --set net.agents=6
                --set net.codec_points=uint8 --set net.codec_low=-1.5 --set net.codec_high=1.5
                --set net.codec_values=int8)
# the noisy points (privacy.clip): the counts of releases and the composed epsilon resume with
# the run; two passes, so the releases per row grow after the resume
polka_ckpt_test(penalty_privacy_p2 periodic 2 2 70 ${CKPT_SMALL} --set net.agents=6
                --set run.passes=2 --set privacy.clip=2 --set privacy.sample_epsilon=8)
# Another placement on resume: METIS parts on 3 ranks to blocks on 2, blocks on 2 to parts on 4
# (the checkpoint names its agents by id, wherever they were placed).
set(CKPT_ER --set net.agents=11 --set net.graph=er --set net.p=0.4)
polka_ckpt_test(partition_3_to_block_2 periodic 3 2 70 ${CKPT_SMALL} ${CKPT_ER}
                --set net.placement=partition)
polka_ckpt_test(block_2_to_partition_4 periodic 2 4 70 ${CKPT_SMALL} ${CKPT_ER})
set_tests_properties(ckpt_partition_3_to_block_2 PROPERTIES
                     ENVIRONMENT "${CKPT_ENV};EVERY=70;RESUME_SET=--set net.placement=block")
set_tests_properties(ckpt_block_2_to_partition_4 PROPERTIES
                     ENVIRONMENT "${CKPT_ENV};EVERY=70;RESUME_SET=--set net.placement=partition")
# Real interruptions at a random log step: SIGTERM to polka alone (centralized, and 4 agents
# on one rank), SIGUSR1 through mpirun (what Open MPI's mpirun forwards to the ranks; on
# SIGTERM it ends the job itself), and SIGKILL between periodic checkpoints.
set(CKPT_LONG --set data.n_train=16000 --set data.n_test=500 --set run.log_every=1200)
# (long enough that a busy CI machine, polling the CSV file, still signals mid-run)
polka_ckpt_test(sigusr1_p2 signal 2 2 0 ${CKPT_LONG} --set net.agents=6 --set run.passes=2)
polka_ckpt_test(sigterm_p1 signal 0 0 0 ${CKPT_LONG} --set net.agents=4 --set run.passes=4)
polka_ckpt_test(sigterm_central signal 0 0 0 ${CKPT_LONG} --centralized --set net.agents=4
                --set run.passes=6)
polka_ckpt_test(sigkill_p4 kill9 4 4 150 ${CKPT_LONG})
set_tests_properties(ckpt_sigusr1_p2 PROPERTIES ENVIRONMENT "${CKPT_ENV};EVERY=0;SIGNAL=USR1")
# The sanitizer pass keeps one run per kind of state (KOMP, NBSGD with its average, the
# centralized learner, another rank count) and the refusals: the others are the same code
# paths with other controls, and the interruptions depend on timing that ASan stretches.
set_tests_properties(ckpt_sigusr1_p2 ckpt_sigterm_p1 ckpt_sigterm_central ckpt_sigkill_p4 ckpt_norma
                     ckpt_bsgd-remove ckpt_bsgd-project ckpt_bsgd-merge ckpt_nbsgd-remove
                     ckpt_nbsgd-project ckpt_nu_trick ckpt_log_step_p4 ckpt_p1
                     PROPERTIES LABELS no_asan)

# Refusals: another configuration, another polka version, a damaged file, no file.
polka_add_test(NAME ckpt_refuse_setup COMMAND bash -c
         "rm -rf ${CKPT_DIR}/refuse && mkdir -p ${CKPT_DIR}/refuse && cd ${CKPT_DIR}/refuse && \
          ${POLKA_MPIEXEC} --oversubscribe -n 3 $<TARGET_FILE:polka> run --quiet --set data.n_train=800 \
            --set run.checkpoint_every=10 --set run.checkpoint=good.ckpt && \
          ${POLKA_MPIEXEC} --oversubscribe -n 3 $<TARGET_FILE:polka> run --quiet --set data.n_train=800 \
            --set learner.schedule=linear --set run.checkpoint_every=10 --set run.checkpoint=linear.ckpt && \
          head -c 2000 good.ckpt >damaged.ckpt && cp good.ckpt version.ckpt && \
          /usr/bin/python3 -c \"import h5py, numpy; h5py.File('version.ckpt', 'r+').attrs['polka_version'] = numpy.bytes_('0.0.1')\" && \
          /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/python/ckpt_digest.py version.ckpt --write >/dev/null && \
          ${POLKA_MPIEXEC} --oversubscribe -n 2 $<TARGET_FILE:polka> run --quiet --set data.n_train=800 \
            --set net.agents=4 --set net.codec_points=int8 --set run.checkpoint_every=10 \
            --set run.checkpoint=int8.ckpt && \
          cp int8.ckpt int8_float32_scale.ckpt && \
          /usr/bin/python3 -c \"import h5py; del h5py.File('int8_float32_scale.ckpt', 'r+').attrs['int8_scale']\" && \
          /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/python/ckpt_digest.py int8_float32_scale.ckpt --write >/dev/null")
set_tests_properties(ckpt_refuse_setup PROPERTIES FIXTURES_SETUP ckpt_refuse
                     ENVIRONMENT "${CKPT_ENV}")
function(polka_ckpt_refused name ranks file regex)
  polka_add_test(NAME ckpt_refuse_${name} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh
           "${regex}" ${POLKA_MPIEXEC} --oversubscribe -n ${ranks} $<TARGET_FILE:polka> run
           --set data.n_train=800 --resume ${CKPT_DIR}/refuse/${file} ${ARGN})
  set_tests_properties(ckpt_refuse_${name} PROPERTIES FIXTURES_REQUIRED ckpt_refuse
                       ENVIRONMENT "${CKPT_ENV}" TIMEOUT 90)
endfunction()
# a checkpoint from before int8's exponent byte (no int8_scale attribute): refused by an int8
# run, which would go on with other bytes; the same checkpoint with it resumes
polka_ckpt_refused(int8_float32_scale 2 int8_float32_scale.ckpt
                   "whose int8 codec sent a float32 scale, and this one sends an exponent byte"
                   --set net.agents=4 --set net.codec_points=int8)
polka_add_test(NAME ckpt_int8_scale_resumes COMMAND ${POLKA_MPIEXEC} --oversubscribe -n 2
         $<TARGET_FILE:polka> run --quiet --set data.n_train=800 --set net.agents=4
         --set net.codec_points=int8 --set run.output=${CKPT_DIR}/refuse/int8_resumed.h5 --resume ${CKPT_DIR}/refuse/int8.ckpt)
set_tests_properties(ckpt_int8_scale_resumes PROPERTIES FIXTURES_REQUIRED ckpt_refuse
                     ENVIRONMENT "${CKPT_ENV}" TIMEOUT 90)
polka_ckpt_refused(config 3 good.ckpt
                   "another configuration: 'learner.eta = 0.5' there, 'learner.eta = 0.25' here"
                   --set learner.eta=0.25)
# the linear schedule's horizon is the run's updates: other passes would change its steps
polka_ckpt_refused(linear_passes 3 linear.ckpt
                   "'run.passes = 1' there, 'run.passes = 2' here .*not under learner.schedule = linear"
                   --set learner.schedule=linear --set run.passes=2)
polka_ckpt_refused(version 3 version.ckpt "written by polka 0.0.1, this is polka")
polka_ckpt_refused(damaged 3 damaged.ckpt "cannot resume from '.*damaged.ckpt': .*damaged")
polka_ckpt_refused(missing 3 none.ckpt "cannot resume: no checkpoint '.*none.ckpt'")
polka_ckpt_refused(agents 4 good.ckpt "it holds 3 agents, this run has 4")
polka_ckpt_refused(past_the_end 3 good.ckpt "the checkpoint is at round 260, and this run has 67 rounds"
                   --set run.passes=0.25)
# The network's faults: the counters and the values in flight go into the checkpoint, the
# draws and the graph of the round are made again; resumed inside an epoch of the changing
# graph (37 rounds, epochs of 11), and at an epoch's edge on another number of ranks.
set(CKPT_FAULTS --set fault.link_loss=0.3 --set fault.offline=0.1 --set fault.delay=3
    --set net.penalty=symmetric --set net.graph=er --set net.p=0.5)
polka_ckpt_test(faults periodic 2 2 37 ${CKPT_SMALL} ${CKPT_FAULTS} --set net.agents=6
                --set net.resample_every=11)
polka_ckpt_test(faults_ranks_2_to_3 periodic 2 3 70 ${CKPT_SMALL} ${CKPT_FAULTS}
                --set net.agents=7 --set net.resample_every=7 --set net.gossip=1)

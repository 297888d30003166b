# The decentralized method: MPI against the serial reference, and its failure modes.
find_program(POLKA_MPIEXEC NAMES mpiexec mpirun REQUIRED)
set(POLKA_MPI_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1")

add_executable(test_mpi_reference mpi/test_mpi_reference.c)
target_include_directories(test_mpi_reference PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/lib) # rounding.h
target_link_libraries(test_mpi_reference PRIVATE polka_par)
foreach(ranks 1 2 3 4)
  polka_add_test(NAME mpi_matches_reference_${ranks}
           COMMAND ${POLKA_MPIEXEC} --oversubscribe -n ${ranks} $<TARGET_FILE:test_mpi_reference>)
  set_tests_properties(mpi_matches_reference_${ranks} PROPERTIES TIMEOUT 300
                       ENVIRONMENT "${POLKA_MPI_ENV}")
endforeach()

# The same with the agents placed by METIS (net.placement = partition): 16 and 17 agents.
foreach(ranks 2 3 4)
  polka_add_test(NAME mpi_matches_reference_partition_${ranks}
           COMMAND ${POLKA_MPIEXEC} --oversubscribe -n ${ranks} $<TARGET_FILE:test_mpi_reference>
                   partition)
  set_tests_properties(mpi_matches_reference_partition_${ranks} PROPERTIES TIMEOUT 300
                       ENVIRONMENT "${POLKA_MPI_ENV}")
endforeach()

# The sanitizer pass (no_asan) runs them on 2 ranks (an even split) and 3 (an uneven one), and
# the block placement on 1 too;
# 4 ranks, oversubscribed on CI's 2 cores, take 92 s and 41 s under ASan for no other shape of
# split, and the plain pass still checks them bit for bit.
set_tests_properties(mpi_matches_reference_4 mpi_matches_reference_partition_4 PROPERTIES
                     LABELS no_asan)

polka_unit_test(test_network unit/test_network.c)
polka_unit_test(test_placement unit/test_placement.c)
polka_unit_test(test_splits unit/test_splits.c)
polka_unit_test(test_faults unit/test_faults.c)
polka_unit_test(test_codec unit/test_codec.c)
polka_unit_test(test_rf_window unit/test_rf_window.c)
polka_unit_test(test_privacy unit/test_privacy.c)
polka_unit_test(test_clock unit/test_clock.c)

# MPI errors are returned as codes and reported, not MPI's abort (MPI_ERRORS_RETURN).
add_executable(test_mpi_errors mpi/test_mpi_errors.c)
target_link_libraries(test_mpi_errors PRIVATE polka_par)
polka_add_test(NAME mpi_errors_are_returned
         COMMAND ${POLKA_MPIEXEC} --oversubscribe -n 2 $<TARGET_FILE:test_mpi_errors>)
set_tests_properties(mpi_errors_are_returned PROPERTIES TIMEOUT 60 ENVIRONMENT "${POLKA_MPI_ENV}")

# The log step's collectives poll: a late rank is named by the watchdog, not waited for.
add_executable(test_net_polled mpi/test_net_polled.c)
target_link_libraries(test_net_polled PRIVATE polka_par)
polka_add_test(NAME net_polled_collectives
         COMMAND ${POLKA_MPIEXEC} --oversubscribe -n 2 $<TARGET_FILE:test_net_polled>)
set_tests_properties(net_polled_collectives PROPERTIES TIMEOUT 60 ENVIRONMENT "${POLKA_MPI_ENV}"
                     PASS_REGULAR_EXPRESSION "^PASS|\nPASS")

# Many agents' metrics appended by one rank to the run file.
add_executable(test_netlog mpi/test_netlog.c)
target_include_directories(test_netlog PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(test_netlog PRIVATE polka_par)
polka_add_test(NAME netlog_many_agents_per_rank
         COMMAND ${POLKA_MPIEXEC} --oversubscribe -n 2 $<TARGET_FILE:test_netlog>)
set_tests_properties(netlog_many_agents_per_rank PROPERTIES TIMEOUT 60
                     ENVIRONMENT "${POLKA_MPI_ENV}")

# Bad networks stop every rank with one message, within seconds (expect_fail.sh: 60 s timeout).
function(polka_mpi_fails name ranks regex)
  polka_add_test(NAME net_${name} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh "${regex}"
           ${POLKA_MPIEXEC} --oversubscribe -n ${ranks} $<TARGET_FILE:polka> run ${ARGN})
  set_tests_properties(net_${name} PROPERTIES ENVIRONMENT "${POLKA_MPI_ENV}" TIMEOUT 90)
endfunction()
set(GRAPHS ${PROJECT_SOURCE_DIR}/graphs)
set(TDATA ${CMAKE_CURRENT_SOURCE_DIR}/data)
polka_mpi_fails(rank_mismatch 3 "has 4 nodes but the run has 3 agents" --set net.graph=${GRAPHS}/ring_4.txt
                --set net.agents=3)
polka_mpi_fails(disconnected 4 "is not connected" --set net.graph=${TDATA}/disconnected_4.txt)
polka_mpi_fails(bad_file 2 "bad_edge.txt:3:" --set net.graph=${TDATA}/bad_edge.txt)
polka_mpi_fails(missing_file 2 "no/such/graph.txt" --set net.graph=no/such/graph.txt)
polka_mpi_fails(agents_below_ranks 3 "the network has 2 agents but the run 3 ranks" --set net.agents=2)
polka_mpi_fails(file_weights_generated 2 "net.weights = file takes the weights from a topology file" --set net.weights=file)
polka_mpi_fails(unstable 4 "unstable penalty step" --set net.graph=${GRAPHS}/complete_4.txt
                --set net.weights=uniform --set net.c=2)
polka_mpi_fails(bad_config_all_ranks 3 "learner.eta must be > 0" --set learner.eta=-1)
polka_mpi_fails(unknown_placement 2 "unknown net.placement 'metis' \\(block, partition\\)"
                --set net.placement=metis)
# A bad option of `polka run` itself reaches every rank too (it hung: parsed on rank 0 only).
polka_mpi_fails(bad_option_all_ranks 2 "unknown --progress mode 'bogus'" --progress=bogus)

# The network's faults: bad settings stop every rank with one message; a resampled graph that
# breaks the stability bound names its round.
polka_mpi_fails(fault_loss_range 2 "fault.link_loss must be in \\[0, 1\\)" --set fault.link_loss=1.5)
polka_mpi_fails(fault_leave_beyond 2 "fault.leave = '1,7': an agent number is out of range"
                --set net.agents=4 --set fault.leave=1,7)
polka_mpi_fails(fault_resample_file 2 "net.resample_every = 5 draws new graphs from a generator"
                --set net.graph=${GRAPHS}/ring_4.txt --set net.resample_every=5)
polka_mpi_fails(fault_resample_unstable 2
                "the graph of epoch 2 \\(rounds 3 to 3, net.resample_every = 1\\): unstable penalty step"
                --set net.agents=12 --set net.graph=er --set net.p=0.3 --set net.weights=uniform
                --set learner.eta=0.2 --set net.resample_every=1 --set data.n_train=600)
# A run with every fault, read back with h5py and `polka report`: the fault columns, /config,
# fewer bytes than the fault-free run, the same models on 1 and 2 ranks.
polka_add_test(NAME faults_runfile COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/faults_run_test.sh
                                      $<TARGET_FILE:polka> ${CMAKE_CURRENT_BINARY_DIR}/faults)
set_tests_properties(faults_runfile PROPERTIES ENVIRONMENT "${POLKA_MPI_ENV}" TIMEOUT 180)
# One rank of a faulty run killed: the job still ends within seconds, the file readable.
polka_add_test(NAME faults_rank_killed COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/fault_kill_test.sh
                                         $<TARGET_FILE:polka> /usr/bin/python3
                                         ${CMAKE_CURRENT_BINARY_DIR}/faults)
set_tests_properties(faults_rank_killed PROPERTIES TIMEOUT 180)

# One agreement per log step: the collectives of a log step counted by a PMPI interposer.
add_library(polka_mpi_count SHARED ${PROJECT_SOURCE_DIR}/tools/mpi_count.c)
target_link_libraries(polka_mpi_count PRIVATE MPI::MPI_C)
polka_add_test(NAME log_step_one_agreement
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/log_step_collectives_test.sh $<TARGET_FILE:polka>
                 $<TARGET_FILE:polka_mpi_count> ${CMAKE_CURRENT_BINARY_DIR}/log_steps)
# no_asan: the counter is LD_PRELOADed, and ASan's runtime must come first in the library list
set_tests_properties(log_step_one_agreement PROPERTIES TIMEOUT 120 ENVIRONMENT "${POLKA_MPI_ENV}"
                     LABELS no_asan)

# The methods: a method that does not exist, and settings a method cannot run with,
# get one clear message on every rank.
polka_mpi_fails(method_unknown 2 "net.method = admm: no such method \\(penalty \\| rf-diffusion \\| dkla \\| coke\\)"
                --set net.method=admm)
polka_mpi_fails(method_rf_delay 2 "fault.delay applies to the penalty method's values; net.method = dkla"
                --set net.method=dkla --set fault.delay=2)
polka_mpi_fails(method_rf_kernel 2 "random Fourier features need learner.kernel = gaussian"
                --set net.method=coke --set learner.kernel=laplacian)
polka_mpi_fails(method_rf_solve 2 "net.rf_solve = newton: linear \\| exact" --set net.method=dkla
                --set net.rf_solve=newton)
polka_mpi_fails(method_exact_hinge 2 "net.rf_solve = exact needs the square loss" --set net.agents=4 --set net.method=dkla
                --set net.rf_solve=exact)
polka_mpi_fails(method_diffusion_weights 2 "rf-diffusion combines with the graph's weights as an average"
                --set net.method=rf-diffusion --set net.weights=uniform --set net.agents=6)
polka_mpi_fails(method_features_range 2 "net.features must be" --set net.method=dkla
                --set net.features=0)

# Codecs on what travels: a codec that does not exist for its kind, top-k where the
# neighbours change, a fraction of nothing; then the encoded bytes counted and recorded.
polka_mpi_fails(codec_points_sparse 2 "net.codec_points = top-k: float64 \\| float32 \\| float16 \\| int8"
                --set net.codec_points=top-k)
polka_mpi_fails(codec_vectors_unknown 2 "net.codec_vectors = bfloat16: float64 .* \\| random-k"
                --set net.method=dkla --set net.codec_vectors=bfloat16)
polka_mpi_fails(codec_topk_gossip 2 "it needs a fixed graph" --set net.method=dkla
                --set net.codec_vectors=top-k --set net.gossip=1)
polka_mpi_fails(codec_k_zero 2 "net.codec_k = 0: the fraction" --set net.method=dkla
                --set net.codec_vectors=random-k --set net.codec_k=0)
polka_mpi_fails(codec_kept_unknown 2 "net.codec_kept = top-k: float64 \\| float32 \\| float16 \\| int8"
                --set net.method=dkla --set net.codec_vectors=random-k --set net.codec_kept=top-k)
polka_mpi_fails(codec_kept_dense 2 "net.codec_kept = int8: how a sparsifier's kept values .* \\(here float16\\)"
                --set net.method=dkla --set net.codec_vectors=float16 --set net.codec_kept=int8)
# uint8's fixed range is for points (model values move), set only with it, low below high
polka_mpi_fails(codec_uint8_values 2 "net.codec_values = uint8: float64 \\| float32 \\| float16 \\| int8$"
                --set net.codec_values=uint8)
polka_mpi_fails(codec_range_alone 2 "net.codec_low, net.codec_high = -2, 1: the range of net.codec_points = uint8 \\(here int8\\)"
                --set net.codec_points=int8 --set net.codec_low=-2)
polka_mpi_fails(codec_range_empty 2 "net.codec_low = 1, net.codec_high = 1: uint8's range needs low < high"
                --set net.codec_points=uint8 --set net.codec_low=1)
polka_mpi_fails(codec_range_overflow 2 "net.codec_low = -1e\\+308, net.codec_high = 1e\\+308: uint8's range needs .* finite and above 0"
                --set net.codec_points=uint8 --set net.codec_low=-1e308 --set net.codec_high=1e308)
polka_mpi_fails(codec_gamma_dkla 2 "net.codec_gamma = 0.2: CHOCO's step is for .* \\(here dkla, top-k\\)"
                --set net.method=dkla --set net.codec_vectors=top-k --set net.codec_gamma=0.2)
polka_mpi_fails(codec_gamma_dense 2 "\\(here rf-diffusion, float16\\)" --set net.method=rf-diffusion
                --set net.codec_vectors=float16 --set net.codec_gamma=0.2)
# a random-feature agent's window of rounds stops at the run's last round (a file source's
# rows on each rank are those of the run's rounds)
polka_add_test(NAME rf_window_run COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/rf_window_run_test.sh
                                    $<TARGET_FILE:polka> ${CMAKE_CURRENT_BINARY_DIR}/rf_window)
set_tests_properties(rf_window_run PROPERTIES ENVIRONMENT "${POLKA_MPI_ENV}" TIMEOUT 120)
polka_add_test(NAME codec_runfile COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/codec_run_test.sh
                                     $<TARGET_FILE:polka> ${CMAKE_CURRENT_BINARY_DIR}/codec)
set_tests_properties(codec_runfile PROPERTIES ENVIRONMENT "${POLKA_MPI_ENV}" TIMEOUT 180)

# dkla's agents reach the centralized random-feature solution (exact primal, fixed data):
# the simulator-level curve of experiments/dkla_convergence_sim.py, its last point.
polka_add_test(NAME dkla_converges COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/experiments/dkla_convergence_sim.py
         --polka $<TARGET_FILE:polka> --out ${CMAKE_CURRENT_BINARY_DIR}/dkla_convergence_sim --rounds 600)
set_tests_properties(dkla_converges PROPERTIES ENVIRONMENT "${POLKA_MPI_ENV}" TIMEOUT 300)

# --centralized with a random-feature method: the method's one agent on the union of the
# streams (a batch of every agent's round) — the same run as asking for it key by key.
polka_add_test(NAME central_random_features COMMAND bash -c
         "set -e; d=${CMAKE_CURRENT_BINARY_DIR}/central_rf; rm -rf $d; mkdir -p $d; \
          p=$<TARGET_FILE:polka>; s='--set data.n_train=800 --set net.method=dkla --set net.features=64'; \
          $p run --quiet $s --set net.agents=8 --set data.split=dirichlet --centralized --set run.output=$d/central.h5; \
          $p run --quiet $s --set net.agents=1 --set net.graph=complete --set learner.batch=8 --set run.output=$d/one.h5; \
          /usr/bin/python3 -c \"import h5py, numpy, sys; a, b = (h5py.File(f)['models/theta'][...] for f in sys.argv[1:]); \
            assert numpy.array_equal(a, b), 'theta differs'; print('same theta', a.shape)\" $d/central.h5 $d/one.h5")
set_tests_properties(central_random_features PROPERTIES ENVIRONMENT "${POLKA_MPI_ENV}" TIMEOUT 120)

# The Gaussian mechanism on the points: nonsense targets, a run that sends no point,
# a split whose rows' releases no count bounds; then the mechanism through the binary.
polka_mpi_fails(privacy_epsilon_zero 2 "privacy.sample_epsilon = 0: the privacy loss of one release must be > 0"
                --set privacy.clip=1 --set privacy.sample_epsilon=0)
polka_mpi_fails(privacy_delta_one 2 "privacy.sample_delta = 1: a probability in \\(0, 1\\)"
                --set privacy.clip=1 --set privacy.sample_delta=1)
polka_mpi_fails(privacy_clip_negative 2 "privacy.clip must be >= 0" --set privacy.clip=-1)
polka_mpi_fails(privacy_clip_huge 2 "privacy.clip = 1e\\+300.*the noise's sigma .* is not a number a point can carry \\(at most 1e100\\); lower privacy.clip"
                --set privacy.clip=1e300)
polka_mpi_fails(privacy_dkla 2 "net.method = dkla sends no points" --set privacy.clip=1
                --set net.method=dkla)
polka_mpi_fails(privacy_centralized 2 "a centralized run sends none" --set privacy.clip=1
                --set run.mode=centralized)
polka_mpi_fails(privacy_file_dirichlet 2 "privacy.clip with data.split = dirichlet of a file: .* no epsilon covers it"
                --set privacy.clip=1 --set data.source=file --set data.train=${TDATA}/two_dim.svm
                --set data.test=${TDATA}/two_dim.svm --set data.split=dirichlet)
polka_add_test(NAME privacy_runfile COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/privacy_run_test.sh
                                       $<TARGET_FILE:polka> ${CMAKE_CURRENT_BINARY_DIR}/privacy)
set_tests_properties(privacy_runfile PROPERTIES ENVIRONMENT "${POLKA_MPI_ENV}" TIMEOUT 180)

# The training file's scan split among the ranks: one process's info, bit for bit.
add_executable(test_scan_split mpi/test_scan_split.c)
target_include_directories(test_scan_split PRIVATE ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR}/lib)
target_link_libraries(test_scan_split PRIVATE polka_par)
foreach(ranks 1 2 3 4)
  polka_add_test(NAME scan_split_${ranks}
           COMMAND bash -c "d=$(mktemp -d) && ${POLKA_MPIEXEC} --oversubscribe -n ${ranks} $<TARGET_FILE:test_scan_split> $d; s=$?; rm -rf $d; exit $s")
  set_tests_properties(scan_split_${ranks} PROPERTIES TIMEOUT 120 ENVIRONMENT "${POLKA_MPI_ENV}"
                       PASS_REGULAR_EXPRESSION "\nPASS|^PASS" FAIL_REGULAR_EXPRESSION "FAIL")
endforeach()

# A time-varying graph (net.resample_every) whose later epoch cannot be used:
# checked up front where cheap (12 agents: refused before the first round, naming epoch 7);
# else (1100 agents, 100 epochs: past the budget of epochs x agents^2 = 1e8) it fails when it
# comes, naming the epoch, and the rounds before it are in the checkpoint.
set(EPOCH_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1")
set(EPOCH_UNSTABLE --set net.graph=er --set net.weights=uniform --set learner.eta=0.5)
polka_add_test(NAME epoch_graph_up_front COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh
         "the graph of epoch 7 \\(rounds 71 to 80, net.resample_every = 10\\): unstable penalty step"
         ${POLKA_MPIEXEC} --oversubscribe -n 2 $<TARGET_FILE:polka> run --quiet ${EPOCH_UNSTABLE}
         --set net.agents=12 --set net.p=0.3 --set net.c=0.3 --set net.resample_every=10
         --set data.n_train=24000 --set run.output=${CMAKE_CURRENT_BINARY_DIR}/epoch_up_front.h5)
set(EPOCH_DIR ${CMAKE_CURRENT_BINARY_DIR}/epochs)
polka_add_test(NAME epoch_graph_late_checkpoint COMMAND bash -c
         "rm -rf ${EPOCH_DIR} && mkdir -p ${EPOCH_DIR} && cd ${EPOCH_DIR} && \
          sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh \
            'the graph of epoch 9 \\(rounds 10 to 10, net.resample_every = 1\\): unstable penalty step.*; the 9 rounds before it are in the checkpoint .late.ckpt.( \\(the rows logged before it are in .late.h5.[a-z0-9]*.tmp.\\))?$' \
            ${POLKA_MPIEXEC} --oversubscribe -n 2 $<TARGET_FILE:polka> run --quiet --set net.graph=er \
            --set net.weights=uniform --set learner.eta=0.5 --set net.agents=1100 --set net.p=0.01 --set net.c=0.085 --set net.resample_every=1 \
            --set data.n_train=110000 --set data.n_test=100 --set run.log_every=1000000 \
            --set run.output=late.h5 --set run.checkpoint=late.ckpt && \
          /usr/bin/python3 -c \"import h5py; r = h5py.File('late.ckpt', 'r').attrs['round']; print('checkpoint at round', r); assert r == 9\"")
set_tests_properties(epoch_graph_up_front epoch_graph_late_checkpoint PROPERTIES
                     ENVIRONMENT "${EPOCH_ENV}" TIMEOUT 120)

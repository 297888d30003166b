# The event engine (async.engine = events): settings it cannot run with get one clear
# message on every rank; then the engine through the built binary (async_run_test.sh).
polka_mpi_fails(async_engine_unknown 2 "async.engine = threads: lockstep \\| events"
                --set async.engine=threads)
polka_mpi_fails(async_delay 2 "async.engine = events cannot run with fault.delay"
                --set async.engine=events --set fault.delay=2)
polka_mpi_fails(async_symmetric 2 "cannot run with net.penalty = symmetric or net.share = samples"
                --set async.engine=events --set net.penalty=symmetric)
polka_mpi_fails(async_topk 2 "cannot run with net.codec_vectors = top-k or random-k"
                --set async.engine=events --set net.method=dkla --set net.codec_vectors=top-k)
polka_mpi_fails(async_staleness_loss 2 "an agent could wait for a message that never comes"
                --set async.engine=events --set async.staleness=2 --set fault.link_loss=0.1)
polka_mpi_fails(async_staleness_gossip 2 "an agent could wait for a message that never comes"
                --set async.engine=events --set async.staleness=2 --set net.gossip=1)
polka_mpi_fails(async_admm_speeds 2 "cannot run net.method = dkla with unequal speeds or latencies.*\\[XWCT21\\]"
                --set async.engine=events --set net.method=dkla --set net.agents=4 --set async.compute_sigma=0.5)
polka_mpi_fails(async_admm_latencies 2 "cannot run net.method = coke with unequal speeds or latencies"
                --set async.engine=events --set net.method=coke --set net.agents=4 --set async.latency_jitter=0.5)
polka_mpi_fails(async_slow_range 2 "async.slow = '0,9': an agent number is out of range"
                --set async.engine=events --set net.agents=4 --set async.slow=0,9)
polka_mpi_fails(async_latency_zero 2 "async.latency must be > 0" --set async.engine=events
                --set async.latency=0)
# Work estimated before the engine starts (async.max_work): endless settings refused by name.
polka_mpi_fails(async_work_windows 2 "about 1e\\+10 windows \\(horizon 10 / async.latency 1e-09\\).*above async.max_work = 1e\\+08"
                --set async.engine=events --set async.horizon=10 --set async.latency=1e-9 --set net.agents=4)
polka_mpi_fails(async_work_rows 2 "1e\\+10 log rows \\(every 1e-09\\)"
                --set async.engine=events --set async.horizon=10 --set async.log_interval=1e-9 --set net.agents=4)
polka_mpi_fails(async_work_horizon 2 "about 1e\\+301 windows"
                --set async.engine=events --set async.horizon=1e300 --set net.agents=4)
polka_mpi_fails(async_work_speeds 2 "e\\+0[89] updates \\(the agents' speeds over the horizon\\)"
                --set async.engine=events --set net.agents=16 --set async.compute_sigma=10)
polka_mpi_fails(async_no_update 2 "no agent learned anything: no update finished .*raise async.horizon"
                --set async.engine=events --set async.horizon=1e-9 --set net.agents=4)
polka_mpi_fails(async_sigma_negative 2 "async.compute_sigma must be in \\[0, 10\\]"
                --set async.engine=events --set async.compute_sigma=-1)
polka_add_test(NAME async_runfile COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/async_run_test.sh
                                     $<TARGET_FILE:polka> ${CMAKE_CURRENT_BINARY_DIR}/async
                                     ${CMAKE_CURRENT_SOURCE_DIR}/python/compare_runs.py)
set_tests_properties(async_runfile PROPERTIES ENVIRONMENT "${POLKA_MPI_ENV}" TIMEOUT 300)

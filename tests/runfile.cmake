# What `polka run` writes: a complete run file, one killed midway, an unwritable path;
# the Slurm scripts run locally with mpiexec in place of srun.
set(RUN_DIR ${CMAKE_CURRENT_BINARY_DIR}/runs)
file(MAKE_DIRECTORY ${RUN_DIR})
set(POLKA_PY /usr/bin/python3)
set(RUN_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1")
set(SMALL --set data.n_train=1600 --set data.n_test=400 --set run.log_every=400)

polka_add_test(NAME runfile_write
         COMMAND ${POLKA_MPIEXEC} --oversubscribe -n 4 $<TARGET_FILE:polka> run --quiet ${SMALL}
                 --set net.graph=ring --set run.output=${RUN_DIR}/finished.h5)
polka_add_test(NAME runfile_h5py COMMAND ${POLKA_PY} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_run.py
                                    ${RUN_DIR}/finished.h5 4)
polka_add_test(NAME runfile_report COMMAND $<TARGET_FILE:polka> report ${RUN_DIR}/finished.h5)
polka_add_test(NAME runfile_central
         COMMAND $<TARGET_FILE:polka> run --quiet --centralized ${SMALL} --set net.agents=4
                 --set run.output=${RUN_DIR}/central.h5)
polka_add_test(NAME runfile_central_h5py COMMAND ${POLKA_PY} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_run.py
                                            ${RUN_DIR}/central.h5 1)
set_tests_properties(runfile_write runfile_central PROPERTIES ENVIRONMENT "${RUN_ENV}"
                     FIXTURES_SETUP run_files)
set_tests_properties(runfile_h5py runfile_central_h5py runfile_report PROPERTIES
                     FIXTURES_REQUIRED run_files)
set_tests_properties(runfile_report PROPERTIES PASS_REGULAR_EXPRESSION "decentralized +4")
polka_add_test(NAME runfile_killed COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/run_kill_test.sh
                                      $<TARGET_FILE:polka> ${POLKA_PY} ${RUN_DIR}/kill)
set_tests_properties(runfile_killed PROPERTIES TIMEOUT 180)
polka_mpi_fails(unwritable_output 2 "cannot create run.output '/nonexistent/dir/run.h5': No such file or directory"
                --set run.output=/nonexistent/dir/run.h5 --set net.graph=line)

# Slurm scripts: valid shell, and what they run works locally.
foreach(script run sweep)
  polka_add_test(NAME slurm_${script}_syntax COMMAND bash -n ${PROJECT_SOURCE_DIR}/slurm/${script}.sbatch)
endforeach()
polka_add_test(NAME slurm_run_local COMMAND env "LAUNCH=${POLKA_MPIEXEC} --oversubscribe -n 4"
         OUTPUT=${RUN_DIR}/slurm_run.h5 POLKA=$<TARGET_FILE:polka>
         "SETTINGS=--set net.graph=ring --set data.n_train=800 --set run.log_every=400"
         bash ${PROJECT_SOURCE_DIR}/slurm/run.sbatch)
polka_add_test(NAME slurm_run_local_h5py COMMAND ${POLKA_PY} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_run.py
                                           ${RUN_DIR}/slurm_run.h5 4)
polka_add_test(NAME slurm_sweep_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${RUN_DIR}/sweep)
set_tests_properties(slurm_sweep_clean PROPERTIES FIXTURES_SETUP slurm_clean)
polka_add_test(NAME slurm_sweep_local COMMAND env SLURM_ARRAY_TASK_ID=2 SLURM_SUBMIT_DIR=${PROJECT_SOURCE_DIR}
         "LAUNCH=${POLKA_MPIEXEC} --oversubscribe -n" OUT=${RUN_DIR}/sweep POLKA=$<TARGET_FILE:polka>
         TOPOLOGIES=graphs/ring_4.txt "CS=0 1" "EXTRA=--set data.n_train=800"
         bash ${PROJECT_SOURCE_DIR}/slurm/sweep.sbatch)
polka_add_test(NAME slurm_sweep_local_h5py COMMAND ${POLKA_PY} ${CMAKE_CURRENT_SOURCE_DIR}/python/check_run.py
                                             ${RUN_DIR}/sweep/ring_4_n4_c1_kp0.04_s1.h5 4)
set_tests_properties(slurm_run_local slurm_sweep_local PROPERTIES ENVIRONMENT "${RUN_ENV}"
                     FIXTURES_SETUP slurm_files)
set_tests_properties(slurm_sweep_local PROPERTIES FIXTURES_REQUIRED slurm_clean)
set_tests_properties(slurm_run_local_h5py slurm_sweep_local_h5py PROPERTIES
                     FIXTURES_REQUIRED slurm_files)

# run.csv: one row per agent per log step, with the header.
polka_add_test(NAME run_csv_write
         COMMAND ${POLKA_MPIEXEC} --oversubscribe -n 3 $<TARGET_FILE:polka> run --quiet ${SMALL}
                 --set net.graph=ring --set run.csv=${RUN_DIR}/metrics.csv)
polka_add_test(NAME run_csv_rows COMMAND ${POLKA_PY} -c
         "import csv; rows = list(csv.DictReader(open('${RUN_DIR}/metrics.csv'))); assert len(rows) == 4 * 3, len(rows); assert sorted({r['agent'] for r in rows}) == ['0', '1', '2']; assert all(0 <= float(r['score']) <= 1 for r in rows); print('ok', len(rows))")
set_tests_properties(run_csv_write PROPERTIES ENVIRONMENT "${RUN_ENV}" FIXTURES_SETUP csv_file)
set_tests_properties(run_csv_rows PROPERTIES FIXTURES_REQUIRED csv_file)

# A stopped rank (SIGSTOP) ends the run through run.watchdog, naming it: another rank, and
# rank 0 (then rank 1 reports).
foreach(stop 2 0)
  polka_add_test(NAME watchdog_rank${stop} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/watchdog_test.sh
                                           $<TARGET_FILE:polka> ${RUN_DIR}/watchdog ${stop})
  set_tests_properties(watchdog_rank${stop} PROPERTIES TIMEOUT 240 LABELS mpi_timing)
endforeach()

# A run file that cannot be written: a device (/dev/full) is refused at once, being no regular
# file (4 ranks, and the one-rank case); when the disk fills midway (a file size limit in every rank), rank 0's
# write fails inside HDF5's collective flush while the others wait there: rank 0 gives up
# after POLKA_NET_FAILED_WAIT and the job is aborted with its message (TIMEOUT: no hang).
polka_mpi_fails(dev_full 4 "run.output '/dev/full' is a character device"
                --set run.output=/dev/full)
polka_mpi_fails(dev_full_one_rank 1 "run.output '/dev/full' is a character device"
                --set run.output=/dev/full)
polka_add_test(NAME runfile_full_midway
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect_fail.sh
                 "run file '.*midway.h5[.a-z0-9]*tmp'.*the other ranks did not reach the status agreement within 15 s"
                 ${POLKA_MPIEXEC} --oversubscribe -n 4 sh -c
                 "trap '' XFSZ; ulimit -f 100; exec $<TARGET_FILE:polka> run --quiet --set data.n_train=4000 --set data.n_test=100 --set run.log_every=100 --set run.output=${RUN_DIR}/midway.h5")
set_tests_properties(runfile_full_midway PROPERTIES ENVIRONMENT "${RUN_ENV}" TIMEOUT 90)

# The CSV file on a device: refused, being no regular file.
polka_mpi_fails(csv_full 3 "run.csv '/dev/full' is a character device"
                --set run.csv=/dev/full --set data.n_train=600 --set data.n_test=100)

# The default centralized mini-batch: one round, at most 32 samples.
polka_add_test(NAME central_batch_default
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/central_batch_test.sh $<TARGET_FILE:polka>
                 ${POLKA_PY} ${RUN_DIR}/central_batch)
set_tests_properties(central_batch_default PROPERTIES ENVIRONMENT "${RUN_ENV}")

# run.log_agents: the metric columns of every S-th agent only, the same cells as a full run.
polka_add_test(NAME log_agents_subset
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/log_agents_test.sh $<TARGET_FILE:polka>
                 ${POLKA_PY} ${POLKA_MPIEXEC} ${RUN_DIR}/log_agents)
set_tests_properties(log_agents_subset PROPERTIES ENVIRONMENT
                     "${RUN_ENV};PYTHONPATH=${PROJECT_BINARY_DIR}/python" TIMEOUT 120)

# The models' older layout (a group per agent, polka before the concatenated /models) is read
# as the new one: polka predict and compare_runs.py.
polka_add_test(NAME runfile_older_models
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/older_models_test.sh $<TARGET_FILE:polka>
                 ${POLKA_PY} ${POLKA_MPIEXEC} ${RUN_DIR}/older_models)
set_tests_properties(runfile_older_models PROPERTIES ENVIRONMENT "${RUN_ENV}" TIMEOUT 120)

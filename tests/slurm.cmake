# The batch scripts under a real Slurm: tests/slurm/slurm_cluster.sh starts a private single-node
# cluster (Debian's slurm-wlm and munge) per test; they are skipped (77) where Slurm is not
# installed. `ctest -L slurm` runs them alone. The sanitizer pass skips them (no_asan): they
# test the batch scripts and Slurm, with the same polka as the plain pass.
set(SLURM_DIR ${CMAKE_CURRENT_BINARY_DIR}/slurm)
set(SLURM_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
set(SLURM_CLUSTER bash ${CMAKE_CURRENT_SOURCE_DIR}/slurm/slurm_cluster.sh)
set(SLURM_JOBS bash ${CMAKE_CURRENT_SOURCE_DIR}/slurm/slurm_jobs_test.sh)

# sbatch --ntasks=4 slurm/run.sbatch: srun --mpi=pmix (Debian's Slurm has PMIx), then on a
# cluster without the PMIx plugin (mpirun); sbatch --array of slurm/sweep.sbatch.
polka_add_test(NAME slurm_sbatch_run COMMAND ${SLURM_CLUSTER} ${SLURM_JOBS} run $<TARGET_FILE:polka>
                                       ${SLURM_DIR}/run)
polka_add_test(NAME slurm_sbatch_run_no_pmix
         COMMAND ${SLURM_CLUSTER} ${SLURM_JOBS} run $<TARGET_FILE:polka> ${SLURM_DIR}/run_no_pmix)
# slurm/million.sbatch (10^6 agents on 1 024 tasks) with AGENTS=64 on 4 tasks.
polka_add_test(NAME slurm_sbatch_million COMMAND ${SLURM_CLUSTER} ${SLURM_JOBS} million
                                           $<TARGET_FILE:polka> ${SLURM_DIR}/million)
polka_add_test(NAME slurm_sbatch_sweep COMMAND ${SLURM_CLUSTER} ${SLURM_JOBS} sweep
                                         $<TARGET_FILE:polka> ${SLURM_DIR}/sweep)
# data.memory = auto under sbatch --mem: the job's memory shared by its tasks.
polka_add_test(NAME slurm_sbatch_memory COMMAND ${SLURM_CLUSTER} ${SLURM_JOBS} memory
                                          $<TARGET_FILE:polka> ${SLURM_DIR}/memory)
# slurm/run.sbatch preempted (USR1): checkpoint, requeue, resume, same run file as uninterrupted.
polka_add_test(NAME slurm_sbatch_preempt COMMAND ${SLURM_CLUSTER} ${SLURM_JOBS} preempt
                                           $<TARGET_FILE:polka> ${SLURM_DIR}/preempt)
polka_add_test(NAME slurm_cluster_stop COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/slurm/slurm_stop_test.sh)
set(SLURM_TESTS slurm_sbatch_run slurm_sbatch_run_no_pmix slurm_sbatch_million slurm_sbatch_sweep
                slurm_sbatch_memory
                slurm_sbatch_preempt
                slurm_cluster_stop)
set_tests_properties(${SLURM_TESTS} PROPERTIES LABELS "slurm;no_asan" SKIP_RETURN_CODE 77 TIMEOUT 400
                     ENVIRONMENT "${SLURM_ENV}")
# One test cluster at a time (each starts munge, slurmctld and slurmd; two at once also put
# two srun jobs on the same node's shared memory)
set_tests_properties(${SLURM_TESTS} PROPERTIES RESOURCE_LOCK slurm_cluster)
# Debian's Slurm has the PMIx plugin: the job must pick srun --mpi=pmix, and mpirun without it.
set_tests_properties(slurm_sbatch_run slurm_sbatch_sweep PROPERTIES
                     ENVIRONMENT "${SLURM_ENV};EXPECT_LAUNCHER=srun --mpi=pmix")
set_tests_properties(slurm_sbatch_run_no_pmix PROPERTIES
                     ENVIRONMENT "${SLURM_ENV};SLURM_CLUSTER_NO_PMIX=1;EXPECT_LAUNCHER=mpirun")

# The cluster side of preemption: a job signalled with scancel --signal=USR1 --batch requeues
# itself and completes on its second run (a shell job; polka's is slurm_sbatch_preempt).
polka_add_test(NAME slurm_cluster_requeue COMMAND ${SLURM_CLUSTER} bash
                                            ${CMAKE_CURRENT_SOURCE_DIR}/slurm/slurm_requeue_test.sh
                                            ${SLURM_DIR}/requeue)
set_tests_properties(slurm_cluster_requeue PROPERTIES LABELS "slurm;no_asan" SKIP_RETURN_CODE 77
                     RESOURCE_LOCK slurm_cluster
                     TIMEOUT 400)

# TERM under srun: `scancel --signal=TERM --full` (preemption's signal; srun
# kills its step at once) leaves the periodic checkpoint, the job does not requeue itself and
# the next submission resumes to the uninterrupted run file; a plain `scancel` ends the job.
foreach(mode term cancel)
  polka_add_test(NAME slurm_sbatch_${mode} COMMAND ${SLURM_CLUSTER} ${SLURM_JOBS} ${mode}
                                             $<TARGET_FILE:polka> ${SLURM_DIR}/${mode})
  set_tests_properties(slurm_sbatch_${mode} PROPERTIES LABELS "slurm;no_asan" SKIP_RETURN_CODE 77
                       TIMEOUT 400 ENVIRONMENT "${SLURM_ENV}" RESOURCE_LOCK slurm_cluster)
endforeach()

#!/usr/bin/env bash
# Prints the command that starts MPI ranks inside a Slurm job, and says on stderr (the job's
# log) which it is and why:
#   - LAUNCH when set (the user's choice), as it is;
#   - else `srun --mpi=pmix` where this Slurm has the PMIx plugin (`srun --mpi=list`):
#     a plain `srun` starts the ranks without a process-management interface when the
#     cluster's MpiDefault is none (Debian's), and Open MPI then aborts in MPI_Init;
#   - else `mpirun`, which reads the job's allocation (Open MPI starts its daemons with srun).
# Arguments are appended to the picked command (slurm/sweep.sbatch passes -n).
set -euo pipefail
if [ -n "${LAUNCH:-}" ]; then
    echo "polka: launcher: $LAUNCH (set by LAUNCH)" >&2
    echo "$LAUNCH"
elif srun --mpi=list 2>&1 | grep -qxE '[[:space:]]*pmix'; then
    echo "polka: launcher: srun --mpi=pmix (srun --mpi=list has pmix)" >&2
    echo "srun --mpi=pmix" "$@"
else
    echo "polka: launcher: mpirun (no pmix in srun --mpi=list)" >&2
    echo "mpirun" "$@"
fi

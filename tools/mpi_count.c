/*
 * A PMPI interposer that counts the MPI collective calls of a process (LD_PRELOAD it), those
 * of polka and of the libraries it calls (libhdf5's MPI-IO). At MPI_Finalize each rank adds
 * one line "rank R collectives C allreduce A" and the count of each function to the file
 * $POLKA_MPI_COUNT (when set). Built by experiments/log_step_cost.sh: cc -shared -fPIC mpi_count.c
 * -o libmpi_count.so.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long collectives, allreduces;
static long calls[16];
static const char *const names[] = {"MPI_Allreduce",     "MPI_Iallreduce",
                                    "MPI_Bcast",         "MPI_Barrier",
                                    "MPI_Reduce",        "MPI_Gather",
                                    "MPI_Gatherv",       "MPI_Allgather",
                                    "MPI_Allgatherv",    "MPI_Scatter",
                                    "MPI_Alltoall",      "MPI_File_set_size",
                                    "MPI_File_sync",     "MPI_File_write_at_all",
                                    "MPI_File_set_view", "MPI_Igatherv"};

#define COUNT(k, ...) (collectives++, calls[k]++, __VA_ARGS__)

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c) {
    allreduces++;
    return COUNT(0, PMPI_Allreduce(s, r, n, t, o, c));
}
int MPI_Iallreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c,
                   MPI_Request *q) {
    allreduces++;
    return COUNT(1, PMPI_Iallreduce(s, r, n, t, o, c, q));
}
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) {
    return COUNT(2, PMPI_Bcast(b, n, t, root, c));
}
int MPI_Barrier(MPI_Comm c) {
    return COUNT(3, PMPI_Barrier(c));
}
int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c) {
    return COUNT(4, PMPI_Reduce(s, r, n, t, o, root, c));
}
int MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,
               MPI_Comm c) {
    return COUNT(5, PMPI_Gather(s, sn, st, r, rn, rt, root, c));
}
int MPI_Gatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *d,
                MPI_Datatype rt, int root, MPI_Comm c) {
    return COUNT(6, PMPI_Gatherv(s, sn, st, r, rn, d, rt, root, c));
}
int MPI_Igatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *d,
                 MPI_Datatype rt, int root, MPI_Comm c, MPI_Request *q) {
    return COUNT(15, PMPI_Igatherv(s, sn, st, r, rn, d, rt, root, c, q));
}
int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                  MPI_Comm c) {
    return COUNT(7, PMPI_Allgather(s, sn, st, r, rn, rt, c));
}
int MPI_Allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *d,
                   MPI_Datatype rt, MPI_Comm c) {
    return COUNT(8, PMPI_Allgatherv(s, sn, st, r, rn, d, rt, c));
}
int MPI_Scatter(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,
                MPI_Comm c) {
    return COUNT(9, PMPI_Scatter(s, sn, st, r, rn, rt, root, c));
}
int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                 MPI_Comm c) {
    return COUNT(10, PMPI_Alltoall(s, sn, st, r, rn, rt, c));
}
int MPI_File_set_size(MPI_File f, MPI_Offset size) {
    return COUNT(11, PMPI_File_set_size(f, size));
}
int MPI_File_sync(MPI_File f) {
    return COUNT(12, PMPI_File_sync(f));
}
int MPI_File_write_at_all(MPI_File f, MPI_Offset o, const void *b, int n, MPI_Datatype t,
                          MPI_Status *st) {
    return COUNT(13, PMPI_File_write_at_all(f, o, b, n, t, st));
}
int MPI_File_set_view(MPI_File f, MPI_Offset o, MPI_Datatype e, MPI_Datatype t, const char *rep,
                      MPI_Info i) {
    return COUNT(14, PMPI_File_set_view(f, o, e, t, rep, i));
}

int MPI_Finalize(void) {
    const char *path = getenv("POLKA_MPI_COUNT");
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    FILE *out = path ? fopen(path, "a") : NULL;
    if (out) {
        fprintf(out, "rank %d collectives %ld allreduce %ld", rank, collectives, allreduces);
        for (size_t k = 0; k < sizeof names / sizeof *names; k++)
            if (calls[k]) fprintf(out, " %s %ld", names[k] + 4, calls[k]);
        fputc('\n', out);
        fclose(out);
    }
    return PMPI_Finalize();
}

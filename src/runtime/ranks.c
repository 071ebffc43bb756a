/* MPI ranks (src/runtime/ranks.h): thin wrappers, trivial without MPI. */
#include "runtime/ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CLMC_HAVE_MPI
#include <mpi.h>
#endif

static clmc_ranks_info info = {0, 1, 0, 1};
static bool initialised;
/* Whether this rank prints the error it returns: rank 0, unless
 * clmc_ranks_agree chose the failed rank. */
static bool reports = true;
#ifdef CLMC_HAVE_MPI
static MPI_Request max_request = MPI_REQUEST_NULL;
#endif
static uint64_t max_values[4];
static bool max_pending;

/* Started by an MPI launcher (mpirun/mpiexec of Open MPI or MPICH, srun):
 * the variables they set in each rank.  Without one, clmc stays a single
 * process and skips MPI_Init, whose singleton start costs ~0.5 s. */
static bool launched_by_mpi(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (getenv(names[i])) return true;
    return false;
}

void clmc_ranks_init(int *argc, char ***argv)
{
#ifdef CLMC_HAVE_MPI
    if (!launched_by_mpi()) return;
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return;
    initialised = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &info.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &info.size);
    MPI_Comm host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, info.rank, MPI_INFO_NULL, &host);
    MPI_Comm_rank(host, &info.local_rank);
    MPI_Comm_size(host, &info.local_size);
    MPI_Comm_free(&host);
    reports = info.rank == 0;
#else
    (void)argc;
    (void)argv;
#endif
}

void clmc_ranks_finalize(void)
{
    uint64_t unused[4];
    clmc_ranks_max_end(unused, 4);
#ifdef CLMC_HAVE_MPI
    if (initialised) MPI_Finalize();
#endif
    initialised = false;
}

void clmc_ranks_settle(double seconds)
{
#ifdef CLMC_HAVE_MPI
    if (!initialised || !clmc_ranks_many()) return;
    MPI_Request request;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    const struct timespec pause = {0, 2000000}; /* 2 ms */
    int done = 0;
    for (double waited = 0; !done && waited < seconds; waited += 0.002) {
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (!done) nanosleep(&pause, NULL);
    }
    fflush(stderr);
#else
    (void)seconds;
#endif
}

const clmc_ranks_info *clmc_ranks(void) { return &info; }

bool clmc_ranks_many(void) { return info.size > 1; }

bool clmc_ranks_built_with_mpi(void)
{
#ifdef CLMC_HAVE_MPI
    return true;
#else
    return false;
#endif
}

bool clmc_ranks_reports(void) { return reports; }

clmc_status clmc_ranks_agree(clmc_status local)
{
    if (!clmc_ranks_many()) return local;
#ifdef CLMC_HAVE_MPI
    int mine = (int)local, *all = malloc((size_t)info.size * sizeof *all);
    if (!all) clmc_ranks_abort(clmc_fail(CLMC_ERR_OTHER, "out of host memory"));
    MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    int failed = -1;
    for (int r = 0; r < info.size && failed < 0; r++)
        if (all[r] != CLMC_OK) failed = r;
    clmc_status status = failed < 0 ? CLMC_OK : (clmc_status)all[failed];
    free(all);
    if (failed < 0) return CLMC_OK;
    reports = failed == info.rank;
    if (reports && info.rank != 0) {
        char message[1024];
        snprintf(message, sizeof message, "%s", clmc_error_message());
        return clmc_fail(status, "rank %d: %s", info.rank, message);
    }
    if (!reports) return clmc_fail(status, "rank %d failed", failed);
    return status;
#else
    return local;
#endif
}

void clmc_ranks_max(uint64_t *values, int n)
{
#ifdef CLMC_HAVE_MPI
    if (clmc_ranks_many()) MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
#else
    (void)values;
    (void)n;
#endif
}

void clmc_ranks_max_begin(const uint64_t *values, int n)
{
    memcpy(max_values, values, (size_t)n * sizeof *values);
    max_pending = true;
#ifdef CLMC_HAVE_MPI
    if (clmc_ranks_many()) MPI_Iallreduce(MPI_IN_PLACE, max_values, n, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD, &max_request);
#endif
}

bool clmc_ranks_max_end(uint64_t *values, int n)
{
    if (!max_pending) return false;
#ifdef CLMC_HAVE_MPI
    if (max_request != MPI_REQUEST_NULL) MPI_Wait(&max_request, MPI_STATUS_IGNORE);
#endif
    memcpy(values, max_values, (size_t)n * sizeof *values);
    max_pending = false;
    return true;
}

void clmc_ranks_sum(double *values, int n)
{
#ifdef CLMC_HAVE_MPI
    if (clmc_ranks_many()) MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#else
    (void)values;
    (void)n;
#endif
}

void clmc_ranks_sum_int64(long long *values, int n)
{
#ifdef CLMC_HAVE_MPI
    if (clmc_ranks_many()) MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
#else
    (void)values;
    (void)n;
#endif
}

clmc_status clmc_ranks_exchange(const void *send, int to, void *receive, int from, size_t bytes, int tag)
{
#ifdef CLMC_HAVE_MPI
    if (bytes > (size_t)INT32_MAX) return clmc_fail(CLMC_ERR_OTHER, "exchange of %zu bytes exceeds MPI's int count", bytes);
    if (MPI_Sendrecv(send, (int)bytes, MPI_BYTE, to, tag, receive, (int)bytes, MPI_BYTE, from, tag, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return clmc_fail(CLMC_ERR_OTHER, "MPI_Sendrecv with ranks %d and %d failed", to, from);
#else
    (void)to;
    (void)from;
    (void)tag;
    memmove(receive, send, bytes);
#endif
    return CLMC_OK;
}

void clmc_ranks_chain_receive(uint64_t *value)
{
#ifdef CLMC_HAVE_MPI
    if (clmc_ranks_many() && info.rank > 0)
        MPI_Recv(value, 1, MPI_UINT64_T, info.rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#else
    (void)value;
#endif
}

void clmc_ranks_chain_send(uint64_t value)
{
#ifdef CLMC_HAVE_MPI
    if (clmc_ranks_many() && info.rank + 1 < info.size)
        MPI_Send(&value, 1, MPI_UINT64_T, info.rank + 1, 0, MPI_COMM_WORLD);
#else
    (void)value;
#endif
}

void clmc_ranks_chain_result(uint64_t *value)
{
#ifdef CLMC_HAVE_MPI
    if (clmc_ranks_many()) MPI_Bcast(value, 1, MPI_UINT64_T, info.size - 1, MPI_COMM_WORLD);
#else
    (void)value;
#endif
}

clmc_status clmc_ranks_gather(const void *send, size_t bytes, void *receive)
{
    if (!clmc_ranks_many()) {
        memmove(receive, send, bytes);
        return CLMC_OK;
    }
#ifdef CLMC_HAVE_MPI
    if (bytes > (size_t)INT32_MAX) return clmc_fail(CLMC_ERR_OTHER, "gather of %zu bytes per rank exceeds MPI's int count", bytes);
    MPI_Gather(send, (int)bytes, MPI_BYTE, receive, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
#endif
    return CLMC_OK;
}

clmc_status clmc_ranks_allgather(const void *send, size_t bytes, void *receive)
{
    if (!clmc_ranks_many()) {
        memmove(receive, send, bytes);
        return CLMC_OK;
    }
#ifdef CLMC_HAVE_MPI
    if (bytes > (size_t)INT32_MAX)
        return clmc_fail(CLMC_ERR_OTHER, "allgather of %zu bytes per rank exceeds MPI's int count", bytes);
    if (send == (const char *)receive + (size_t)info.rank * bytes) send = MPI_IN_PLACE; /* its own slot */
    if (MPI_Allgather(send, (int)bytes, MPI_BYTE, receive, (int)bytes, MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS)
        return clmc_fail(CLMC_ERR_OTHER, "MPI_Allgather of %zu bytes per rank failed", bytes);
#endif
    return CLMC_OK;
}

clmc_status clmc_ranks_gatherv(const void *send, size_t bytes, void *receive, size_t *counts)
{
    if (!clmc_ranks_many()) {
        memmove(receive, send, bytes);
        counts[0] = bytes;
        return CLMC_OK;
    }
#ifdef CLMC_HAVE_MPI
    uint64_t mine = bytes;
    uint64_t *all = malloc((size_t)info.size * sizeof *all);
    int *sizes = malloc((size_t)info.size * sizeof *sizes), *offsets = malloc((size_t)info.size * sizeof *offsets);
    if (!all || !sizes || !offsets) clmc_ranks_abort(clmc_fail(CLMC_ERR_OTHER, "out of host memory"));
    MPI_Gather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    uint64_t total = 0;
    for (int r = 0; r < info.size && info.rank == 0; r++) {
        sizes[r] = (int)all[r];
        offsets[r] = (int)total;
        counts[r] = (size_t)all[r];
        total += all[r];
    }
    uint64_t too_large = total > (uint64_t)INT32_MAX;
    MPI_Bcast(&too_large, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (!too_large)
        MPI_Gatherv(send, (int)bytes, MPI_BYTE, receive, sizes, offsets, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(all);
    free(sizes);
    free(offsets);
    if (too_large) return clmc_fail(CLMC_ERR_OTHER, "the ranks' results exceed 2 GiB in one gather");
#endif
    return CLMC_OK;
}

#ifdef CLMC_HAVE_MPI
/* Byte counts and displacements as MPI's ints, or false past 2 GiB. */
static bool int_counts(const size_t *counts, int *sizes, int *offsets)
{
    size_t total = 0;
    for (int r = 0; r < info.size; r++) {
        if (counts[r] > (size_t)INT32_MAX || total > (size_t)INT32_MAX) return false;
        sizes[r] = (int)counts[r];
        offsets[r] = (int)total;
        total += counts[r];
    }
    return total <= (size_t)INT32_MAX;
}
#endif

unsigned clmc_ranks_share_start(unsigned units, int rank)
{
    return (unsigned)((unsigned long long)units * (unsigned)rank / (unsigned)info.size);
}

clmc_status clmc_ranks_allgatherv(const void *send, void *receive, const size_t *counts)
{
    if (!clmc_ranks_many()) {
        memmove(receive, send, counts[0]);
        return CLMC_OK;
    }
#ifdef CLMC_HAVE_MPI
    int *sizes = malloc((size_t)info.size * sizeof *sizes), *offsets = malloc((size_t)info.size * sizeof *offsets);
    clmc_status status = sizes && offsets ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK && !int_counts(counts, sizes, offsets))
        status = clmc_fail(CLMC_ERR_OTHER, "an MPI all-gather past 2 GiB");
    if (status == CLMC_OK &&
        MPI_Allgatherv(send, sizes[info.rank], MPI_BYTE, receive, sizes, offsets, MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS)
        status = clmc_fail(CLMC_ERR_OTHER, "MPI_Allgatherv failed");
    free(sizes);
    free(offsets);
    return status;
#else
    return CLMC_OK;
#endif
}

clmc_status clmc_ranks_alltoall_counts(const size_t *send_counts, size_t *receive_counts)
{
    if (!clmc_ranks_many()) {
        receive_counts[0] = send_counts[0];
        return CLMC_OK;
    }
#ifdef CLMC_HAVE_MPI
    uint64_t *out = malloc(2 * (size_t)info.size * sizeof *out);
    if (!out) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (int r = 0; r < info.size; r++) out[r] = send_counts[r];
    int ok = MPI_Alltoall(out, 1, MPI_UINT64_T, out + info.size, 1, MPI_UINT64_T, MPI_COMM_WORLD) == MPI_SUCCESS;
    for (int r = 0; r < info.size; r++) receive_counts[r] = (size_t)out[info.size + r];
    free(out);
    if (!ok) return clmc_fail(CLMC_ERR_OTHER, "MPI_Alltoall failed");
#endif
    return CLMC_OK;
}

clmc_status clmc_ranks_alltoallv(const void *send, const size_t *send_counts, void *receive,
                                 const size_t *receive_counts)
{
    if (!clmc_ranks_many()) {
        memmove(receive, send, send_counts[0]);
        return CLMC_OK;
    }
#ifdef CLMC_HAVE_MPI
    int *v = malloc(4 * (size_t)info.size * sizeof *v);
    clmc_status status = v ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    int *sizes = v, *offsets = v + info.size, *r_sizes = v + 2 * info.size, *r_offsets = v + 3 * info.size;
    if (status == CLMC_OK && (!int_counts(send_counts, sizes, offsets) || !int_counts(receive_counts, r_sizes, r_offsets)))
        status = clmc_fail(CLMC_ERR_OTHER, "an MPI all-to-all past 2 GiB");
    if (status == CLMC_OK && MPI_Alltoallv(send, sizes, offsets, MPI_BYTE, receive, r_sizes, r_offsets, MPI_BYTE,
                                           MPI_COMM_WORLD) != MPI_SUCCESS)
        status = clmc_fail(CLMC_ERR_OTHER, "MPI_Alltoallv failed");
    free(v);
    return status;
#else
    return CLMC_OK;
#endif
}

void clmc_ranks_sum_uint32(uint32_t *values, size_t n)
{
#ifdef CLMC_HAVE_MPI
    for (size_t at = 0; clmc_ranks_many() && at < n; at += (size_t)INT32_MAX) {
        size_t part = n - at < (size_t)INT32_MAX ? n - at : (size_t)INT32_MAX;
        MPI_Allreduce(MPI_IN_PLACE, values + at, (int)part, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
    }
#else
    (void)values;
    (void)n;
#endif
}


_Noreturn void clmc_ranks_abort(clmc_status status)
{
    fprintf(stderr, "clmc: error: rank %d: %s (ending all ranks)\n", info.rank, clmc_error_message());
    fflush(stderr);
#ifdef CLMC_HAVE_MPI
    if (initialised) MPI_Abort(MPI_COMM_WORLD, (int)status);
#endif
    exit((int)status);
}

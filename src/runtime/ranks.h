/* The processes of an MPI launch (`mpirun -np K clmc run ...`, docs/mpi.md):
 * K ranks, each driving one device.  Built without MPI (meson -Dmpi=disabled)
 * or started without mpirun, there is one rank and every call below is
 * trivial, so single-process code paths need no conditionals. */
#ifndef CLMC_RANKS_H
#define CLMC_RANKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clmc/status.h"

typedef struct clmc_ranks_info {
    int rank, size;             /* this process, of `size` */
    int local_rank, local_size; /* among the ranks of this host (device choice) */
} clmc_ranks_info;

/* MPI_Init where clmc was built with MPI; call once, first thing in main. */
void clmc_ranks_init(int *argc, char ***argv);
void clmc_ranks_finalize(void);
/* On a failed exit: waits (at most `seconds`) until every rank has reached
 * this point, so a rank that fails silently does not end before the one
 * that prints the message (the launcher ends the others when one process
 * exits with an error).  Bounded, so a rank that never arrives (it failed
 * alone, inside a collective step) cannot hang the rest. */
void clmc_ranks_settle(double seconds);
const clmc_ranks_info *clmc_ranks(void);
/* More than one rank: the run is distributed. */
bool clmc_ranks_many(void);
/* Whether the MPI library is built in (recorded in results). */
bool clmc_ranks_built_with_mpi(void);

/* A step every rank takes (collective): CLMC_OK where every rank's `local` is
 * CLMC_OK; otherwise the code of the lowest failed rank, on every rank.  That
 * rank keeps its message (prefixed with its number when it is not rank 0) and
 * is the one that reports it (clmc_ranks_reports); the others return the
 * same code silently.  An error every rank meets alike (a bad preset) is
 * thus printed once, by rank 0. */
clmc_status clmc_ranks_agree(clmc_status local);
/* Whether this rank prints the error it returns: rank 0, or the rank
 * clmc_ranks_agree chose. */
bool clmc_ranks_reports(void);

/* In-place reductions over all ranks (collective). */
void clmc_ranks_max(uint64_t *values, int n);
void clmc_ranks_sum(double *values, int n);
/* A maximum over all ranks that does not wait: clmc_ranks_max_begin starts
 * it on n <= 4 values (collective, every rank at the same point of its
 * run); clmc_ranks_max_end completes the one begun and gives its result
 * (false: none pending).  One at a time; clmc_ranks_finalize completes a
 * pending one. */
void clmc_ranks_max_begin(const uint64_t *values, int n);
bool clmc_ranks_max_end(uint64_t *values, int n);
/* Exact in-place sums of 64-bit integers over all ranks (collective). */
void clmc_ranks_sum_int64(long long *values, int n);
/* Domain decomposition (docs/mpi.md): sends `bytes` to rank `to` while
 * receiving as many from rank `from` (MPI_Sendrecv, message `tag`). */
clmc_status clmc_ranks_exchange(const void *send, int to, void *receive, int from, size_t bytes, int tag);
/* A value passed along the ranks in order: clmc_ranks_chain_receive waits
 * for rank - 1's value (rank 0: keeps *value), clmc_ranks_chain_send hands
 * it to rank + 1; clmc_ranks_chain_result then gives every rank the last
 * rank's value.  Collective. */
void clmc_ranks_chain_receive(uint64_t *value);
void clmc_ranks_chain_send(uint64_t value);
void clmc_ranks_chain_result(uint64_t *value);
/* Rank 0 receives every rank's `bytes` bytes (equal on all ranks) in rank
 * order into `receive` (size x bytes; ignored elsewhere).  Collective. */
clmc_status clmc_ranks_gather(const void *send, size_t bytes, void *receive);
/* Every rank receives every rank's `bytes` bytes in rank order into
 * `receive` (size x bytes); `send` may be this rank's own slot of `receive`
 * (in place).  Collective. */
clmc_status clmc_ranks_allgather(const void *send, size_t bytes, void *receive);
/* As clmc_ranks_gather with per-rank sizes: counts[r] bytes from rank r
 * (rank 0 reads them into `counts`, size entries). */
clmc_status clmc_ranks_gatherv(const void *send, size_t bytes, void *receive, size_t *counts);

/* Every rank receives every rank's bytes in rank order (counts[r] bytes
 * from rank r, known on every rank) into `receive`.  Collective. */
clmc_status clmc_ranks_allgatherv(const void *send, void *receive, const size_t *counts);
/* Personalised exchange (collective): clmc_ranks_alltoall_counts tells each
 * rank the byte counts the others will send it (receive_counts[r] from rank
 * r); clmc_ranks_alltoallv then sends send_counts[r] bytes of `send`, in
 * rank order, to rank r, and receives receive_counts[r] from rank r into
 * `receive` in rank order. */
clmc_status clmc_ranks_alltoall_counts(const size_t *send_counts, size_t *receive_counts);
clmc_status clmc_ranks_alltoallv(const void *send, const size_t *send_counts, void *receive,
                                 const size_t *receive_counts);
/* Exact in-place sums of 32-bit unsigned counts over all ranks (collective). */
void clmc_ranks_sum_uint32(uint32_t *values, size_t n);
/* Rank r's share of `units` units cut into contiguous shares: [start(r),
 * start(r + 1)) with start(r) = r units / size (start(size) = units). */
unsigned clmc_ranks_share_start(unsigned units, int rank);

/* A failure on one rank after the ranks have parted (inside the sweep loop):
 * prints the message and ends every rank (MPI_Abort), so none waits forever
 * for the failed one. */
_Noreturn void clmc_ranks_abort(clmc_status status);

#endif

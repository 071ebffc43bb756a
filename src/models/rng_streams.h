/* algorithm.rng (docs/rng.md): the generator of a model's update numbers, the
 * kernel defines that select it and, for the stateful generators, their streams'
 * states in device memory (initialised by the rng_init kernel of
 * cl/common/rng_streams.h, saved in checkpoints by the model). */
#ifndef CLMC_MODELS_RNG_STREAMS_H
#define CLMC_MODELS_RNG_STREAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "clmc/preset.h"
#include "clmc/runtime.h"
#include "runtime/defines.h"

typedef enum {
    CLMC_RNG_PHILOX4X32_10, /* the default: no defines, the kernels as they were */
    CLMC_RNG_PHILOX4X32_7,
    CLMC_RNG_LCG32,
    CLMC_RNG_LCG64,
    CLMC_RNG_LCG32_RANDOM,
    CLMC_RNG_LCG64_RANDOM,
    CLMC_RNG_LAGFIB_521,
    CLMC_RNG_LAGFIB_1279,
    CLMC_RNG_LAGFIB_1279_418,
    CLMC_RNG_XORWOW,
    CLMC_RNG_LCG64_RESEEDED, /* msc resident population annealing only (docs/rng.md) */
    CLMC_RNG_COUNT /* the number of generators */
} clmc_rng_kind;

/* The names, in clmc_rng_kind order, NULL-terminated (the key's choices). */
extern const char *const clmc_rng_names[];

/* The entry of an algorithm field table. */
#define CLMC_RNG_ALGORITHM_FIELDS                                                                      \
    {"rng", CLMC_FIELD_STRING, 0, 0, false, clmc_rng_names, "\"philox4x32_10\"",                      \
     "generator of the update's random numbers: philox4x32_10, philox4x32_7, lcg32, lcg64, "            \
     "lcg32_random, lcg64_random, lagged_fibonacci_521, lagged_fibonacci_1279, "                       \
     "lagged_fibonacci_1279_418, xorwow or lcg64_reseeded (docs/rng.md)"}

clmc_rng_kind clmc_rng_from_preset(const clmc_preset *p);
/* Generators whose state lives in device memory (all but the Philox ones). */
bool clmc_rng_stateful(clmc_rng_kind kind);
/* Lagged Fibonacci: ring length r, short lag s, numbers per batch (0 for the others). */
bool clmc_rng_lagfib(clmc_rng_kind kind, unsigned *r, unsigned *s, unsigned *batch);

/* The streams of one model: `streams` per configuration, `configs` configurations
 * (a lagged Fibonacci stream is a ring of r words, the others one state each).
 * own_rings: each lagged Fibonacci ring serves one work-item, which draws any
 * count of numbers from it at its own position (one more word per stream, after
 * the rings; kernel define RNG_LAGFIB_OWN), rather than batches shared by many. */
typedef struct {
    clmc_rng_kind kind;
    cl_uint streams, configs;
    bool own_rings;
    cl_mem states; /* NULL for the stateless generators */
} clmc_rng_streams;

/* Bytes of the states in device memory (0 for the stateless generators). */
size_t clmc_rng_state_bytes(clmc_rng_kind kind, unsigned long long streams, unsigned long long configs);
/* The same with own_rings (a lagged Fibonacci stream's r words plus its position). */
size_t clmc_rng_own_ring_state_bytes(clmc_rng_kind kind, unsigned long long streams, unsigned long long configs);
/* The kernel defines of the generator (none for philox4x32_10). */
void clmc_rng_defines(const clmc_rng_streams *r, clmc_defines *d);
/* Allocates the states and seeds them with the program's rng_init kernel from the
 * run's seed, configuration c as run-wide system first_system + c (no-op for the
 * stateless generators). */
clmc_status clmc_rng_streams_create(clmc_runtime *rt, cl_program program, clmc_rng_streams *r, cl_uint seed_lo,
                                    cl_uint seed_hi, cl_uint first_system);
void clmc_rng_streams_release(clmc_rng_streams *r);
/* Checkpoints: the states as stored, into blob + offset (bytes from clmc_rng_state_bytes,
 * or clmc_rng_own_ring_state_bytes with own_rings). */
clmc_status clmc_rng_streams_download(clmc_runtime *rt, const clmc_rng_streams *r, unsigned char *blob);
clmc_status clmc_rng_streams_upload(clmc_runtime *rt, const clmc_rng_streams *r, const unsigned char *blob);

#endif

/* Parallel tempering: temperature <-> configuration maps, exchanges between
 * neighbouring temperatures on the host from device-computed energies, and
 * their statistics.  Without tempering it holds one temperature. */
#ifndef CLMC_TEMPERING_H
#define CLMC_TEMPERING_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "models/model.h"

/* ensemble.exchanges: where exchanges run (src/tempering_device.c). */
typedef enum {
    CLMC_EXCHANGES_AUTO,    /* the model's own device kernel, else the general one, else the host */
    CLMC_EXCHANGES_GENERAL, /* the general device kernel (else the host) */
    CLMC_EXCHANGES_HOST     /* the host, from energies the model computes on the device */
} clmc_exchange_path;

typedef struct clmc_tempering {
    unsigned n_systems, n_temperatures, n_configs;
    clmc_exchange_path exchange_path;
    bool independent;        /* ensemble.type "independent": no exchanges, results per system */
    unsigned first_system;   /* ensemble.first_system: the run-wide index of the first system */
    unsigned exchange_first; /* the run-wide index of system 0 among the tempering systems (first_system x
                              * systems per realization), keying the exchange draws */
    /* Parallel tempering of one system across MPI ranks (docs/mpi.md): this
     * rank's model holds configurations [share_first, share_first +
     * share_count) of the n_configs here; 0, 0: the model holds them all. */
    unsigned share_first, share_count;
    unsigned configs_per_system; /* independent: configurations of one system (clmc_model_shape) */
    bool athermal;           /* independent systems of a model without temperature: no temperature columns */
    double *betas;           /* [t], increasing */
    unsigned *config_at;     /* [system][t]: configuration simulated at temperature t */
    int *heading;            /* [config]: +1 heading to the cold end, -1 back, 0 not yet started */
    uint64_t *accepted, *attempted; /* [t] for the pair (t, t + 1) */
    uint64_t round_trips, exchanges, exchange_every;
    uint32_t seed_lo, seed_hi;
    double *config_betas;    /* [config], scratch for set_betas */
    unsigned *temperature_of; /* [config], scratch for set_betas */
    double *energies;        /* [config], scratch */
    double *log_uniform_edges; /* [bucket edge]: log of the exchange uniforms there */
} clmc_tempering;

/* n betas, increasing (one without tempering); seed: run.seed, the key of
 * the exchange draws.  share_count > 0 (tempering across MPI ranks): the
 * model (shape) holds configurations [share_first, share_first +
 * share_count) of one system's n. */
clmc_status clmc_tempering_init(clmc_tempering *pt, const double *betas, size_t n, uint64_t exchange_every,
                                uint64_t seed, const clmc_model_shape *shape, unsigned share_first,
                                unsigned share_count);
void clmc_tempering_free(clmc_tempering *pt);
/* Tells the model the inverse temperature of every configuration. */
clmc_status clmc_tempering_apply(clmc_tempering *pt, const clmc_model_ops *ops, void *state);
/* One exchange attempt for every neighbouring pair of every system (across
 * MPI ranks: collective, every rank gathering all energies and deciding
 * every pair alike). */
clmc_status clmc_tempering_exchange(clmc_tempering *pt, const clmc_model_ops *ops, void *state);
/* The host's exchange rule for uniform v at log_ratio, and its log u
 * (exposed so that exact integer thresholds can reproduce them). */
bool clmc_tempering_accepts(const clmc_tempering *pt, uint32_t v, double log_ratio);
double clmc_tempering_log_uniform(uint64_t v);
/* observables.tempering: per-pair acceptance, attempts, round trips. */
void clmc_tempering_report(const clmc_tempering *pt, cJSON *observables);

#endif

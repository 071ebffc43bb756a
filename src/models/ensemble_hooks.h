/* What a model offers to ensembles (parallel tempering, independent systems): the only
 * ensemble header a model includes; clmc_model_ops.ensemble points to one of
 * these, or is NULL for a model that supports no ensemble. */
#ifndef CLMC_ENSEMBLE_HOOKS_H
#define CLMC_ENSEMBLE_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clmc/preset.h"
#include "clmc/runtime.h"
#include "clmc/status.h"

/* ensemble.type "independent" (docs/ensembles.md): the model holds
 * clmc_preset_systems(preset)->copies systems of len(betas) configurations
 * each (shape: n_systems = copies, n_temperatures = len(betas); config =
 * copy * T + t), and configuration c draws the random numbers of system
 * first_system + c, its config field of CLMC_STREAM (cl/common/philox.h:
 * first_system is every drawing kernel's last argument).  Both are 1 and 0 otherwise. */

/* A model's own tempering exchange (clmc_ensemble_hooks.exchange_kernel),
 * kernels of the model's program, kept and released by the model:
 *   kernel: does an exchange as cl/ensembles/tempering_exchange.h does (its
 *     TEMPERING_EXCHANGE_ARGUMENTS first, set by the ensemble) and then what
 *     set_temperatures_device does, launched with items_per_system
 *     work-items per system in work-groups of `group` work-items;
 *   reach_pass (optional, else NULL): a kernel the model launches itself
 *     after the last exchange and before the next one's energies are ready
 *     (its sweep_before_energies pass), which does what
 *     tempering_reach_draws does for the next exchange with its
 *     TEMPERING_REACH_ARGUMENTS, from argument reach_argument on, set by the
 *     ensemble (the exchange number anew after every exchange); where there
 *     is one, `kernel` takes the reaches as the argument after its
 *     TEMPERING_EXCHANGE_ARGUMENTS instead of finding them itself. */
typedef struct clmc_exchange_kernels {
    cl_kernel kernel;
    size_t group, items_per_system;
    cl_kernel reach_pass;
    unsigned reach_argument;
} clmc_exchange_kernels;

/* ensemble.type "multicanonical" (src/ensembles/multicanonical.c): walkers,
 * each a whole system with integer energies E = e_min + e_step * bin, bin <
 * n_bins, run by the kernels muca_init, muca_acceptance and muca_sweeps of
 * `program` (built with `defines` plus N_WALKERS, BLOCKS, N_BINS, E_MIN,
 * E_STEP and MAX_BIN_STEP; see cl/ensembles/muca_walkers.h for their
 * arguments).  The first and last bins must be reachable (ground states)
 * unless edges_unknown; bins in between may not be.  units > 1: that many
 * systems (the EA spin glass's disorder realizations), each with its own
 * density of states, run one after another by the same walkers, the
 * kernels' last arguments model_data = `data` and the unit
 * (cl/ensembles/muca_walkers.h). */
typedef struct clmc_density_walkers {
    const char *program, *defines; /* defines: valid until the model is destroyed */
    int e_min, e_step;
    unsigned n_bins;
    unsigned max_bin_step; /* largest |bin change| of one update */
    double sites;         /* spin updates per walker sweep */
    double log_states;    /* ln of the number of configurations (N ln 2) */
    size_t walker_bytes;  /* device bytes of one walker's configuration */
    unsigned units;       /* systems with a density of states each; 0: one, results without "realizations" */
    cl_mem data;          /* the kernels' model_data (kept by the model), or NULL */
    bool edges_unknown;   /* the first and last bins need not be reachable (spin-glass ground states) */
} clmc_density_walkers;

/* Population annealing: what the second per-member value of
 * member_observables is (clmc_ensemble_hooks.member_order; without it the
 * magnetisation M, as Ising).  With o = value / norm per member, the results
 * report <|o|> as abs_name, <o^2> as square_name, <o^4> as fourth_name, beta
 * sites (<o^2> - <|o|>^2) as susceptibility_name and binder_scale (1 - <o^4>
 * / (3 <o^2>^2)) as binder_name (scale 3/2: the spin glasses' (3 - <q^4> /
 * <q^2>^2) / 2); a NULL name is left out. */
typedef struct clmc_member_order {
    const char *abs_name, *square_name, *fourth_name, *susceptibility_name, *binder_name;
    double norm, binder_scale;
} clmc_member_order;

/* Configurations are numbered as in clmc_model_shape: config = system *
 * n_temperatures + slot.  `state` is the model's. */
typedef struct clmc_ensemble_hooks {
    /* Holds copies x len(betas) configurations for ensemble.type
     * "independent" (above); set_betas is then called once, at the start. */
    bool independent;
    /* Which preset count holds the independent systems, for MPI ranks that
     * share them out (src/engine/distribute.c): NULL, ensemble.copies with
     * len(betas) systems per copy; else an integer key (the spin glasses:
     * "model.realizations") with one system per unit, ensemble.copies 1.
     * independent_block (optional, with a key): how many units must stay on
     * one rank, a share's size and first_system being multiples of it (EA
     * msc: algorithm.word_bits); NULL: 1. */
    const char *independent_units;
    unsigned (*independent_block)(const clmc_preset *preset);
    /* With independent_units: parallel tempering tempers each unit alone
     * (n_systems / units systems, each over all the betas: the spin glasses'
     * realizations of two replicas), so ensemble.first_system counts units
     * there too (src/ensembles/ensemble.c, the exchange draws' run-wide
     * systems) and MPI ranks share the units of a tempering run
     * (src/engine/distribute.c).  false: tempering holds one unit. */
    bool units_temper_alone;
    /* Total energy H of every configuration, computed on the device. */
    clmc_status (*energies)(void *state, double *energies);
    /* The inverse temperature each configuration is simulated at, and its
     * index in the ensemble's increasing betas. */
    clmc_status (*set_betas)(void *state, const double *betas, const unsigned *temperature_of);
    /* Optional: every configuration at the one inverse temperature beta
     * (population annealing), as set_betas with all betas equal and every
     * temperature_of 0 would set them, without work per configuration on the
     * host (clmc_write_repeated).  Not waited for: the host values written
     * from stay unchanged until the ensemble has waited for the queue to pass
     * the write (population_annealing.c, set_beta).  NULL: set_betas. */
    clmc_status (*set_beta_all)(void *state, double beta);
    /* Optional: true where set_beta_all writes nothing from host memory (the
     * temperature goes into the update's arguments), so the ensemble need
     * not wait for the write before the next call.  NULL: false. */
    bool (*beta_in_arguments)(void *state);
    /* Optional: like clmc_model_ops.sweep, for a sweep after which the
     * ensemble asks for the energies before any other sweep, so the model may
     * compute them during the sweep.  NULL: the sweep callback runs. */
    clmc_status (*sweep_before_energies)(void *state, uint64_t sweep_index);
    /* Optional, exchanges on the device (src/ensembles/tempering_device.c;
     * without them, or with ensemble.exchanges "host", the host path above runs).
     * energies_device: the device buffer of integers, cl_int [config], that
     * the last sweep_before_energies enqueued, each the energy divided by
     * *scale up to a constant; *energies = NULL when the model cannot give
     * them (asked at start, then before every exchange, where the buffer must
     * not change).  An exchange sets every value to 0 after reading it, so the
     * model may accumulate the next ones with atomic adds.
     * set_temperatures_device: enqueues what set_betas does, from the device
     * maps config_at [system][temperature] and temperature_of [config];
     * nothing may be read back.
     * exchange_kernel (optional): fills clmc_exchange_kernels (above) with
     * the model's own exchange kernel, or kernel = NULL when the model has
     * none for this run.  Where there is one, set_temperatures_device is not
     * called and the ensemble's temperature_of buffer is not kept. */
    clmc_status (*energies_device)(void *state, cl_mem *energies, int *scale);
    clmc_status (*set_temperatures_device)(void *state, cl_mem config_at, cl_mem temperature_of);
    clmc_status (*exchange_kernel)(void *state, clmc_exchange_kernels *out);
    /* Optional: the walkers of ensemble.type "multicanonical" (above). */
    clmc_status (*density_walkers)(void *state, clmc_density_walkers *out);
    /* Population annealing (src/ensembles/population_annealing.c), all three or
     * none:
     * member_observables: enqueues, for every configuration, the total energy
     * H and the total magnetisation as cl_int (cl_double with real_members,
     * below) into *energy and *magnetisation (device buffers the model keeps;
     * nothing read back).
     * members_buffer: the device buffer holding every configuration's state,
     * *bytes_per_member (a multiple of 4) per configuration in configuration
     * order, which the ensemble may overwrite between sweeps (copies of
     * configurations into other slots). */
    clmc_status (*member_observables)(void *state, cl_mem *energy, cl_mem *magnetisation);
    clmc_status (*members_buffer)(void *state, cl_mem *buffer, size_t *bytes_per_member);
    /* Optional: population annealing's resampling gathers the new members
     * into a second buffer of the same size (the members buffer's bytes) and
     * hands it over in *buffer: the model takes it as its members buffer
     * (binding its kernels anew) and returns its old buffer in *buffer, which
     * the ensemble then owns; leaving *buffer unchanged declines (the
     * members are copied back).  NULL: always copied. */
    clmc_status (*swap_members)(void *state, cl_mem *buffer);
    /* Optional: the gather fused into the sweeps.  As swap_members, but the
     * model takes *buffer with its contents stale, and its next sweeps call
     * (made before anything else reads or writes the members) first loads
     * member j from the old buffer (returned in *buffer), j < n_new from
     * slot source[j] (a device buffer of cl_uint) and the rest from slot j,
     * as if gathered, swapped and the tail copied (members in lanes,
     * member_lanes below: the lanes past n_new 0, as the bit gather leaves
     * them).  Leaving *buffer
     * unchanged declines (then the gather and swap_members run).  NULL:
     * always declined. */
    clmc_status (*gather_in_sweeps)(void *state, cl_mem *buffer, cl_mem source, cl_uint n_new);
    /* Optional: the sweeps that measure the members (CLMC_MEASURE_MEMBERS
     * with *measured true) also fold their integer energies into
     * chunk_range (a device buffer of cl_int pairs: chunk c's least and
     * greatest energy of configurations [256 c, 256 c + 256), by atomic_min
     * and atomic_max into what the ensemble left there) from now on; *folds
     * false declines (the ensemble then finds the ranges itself).  NULL:
     * always declined. */
    clmc_status (*fold_energy_range)(void *state, cl_mem chunk_range, bool *folds);
    /* The sites N of one system (observables per site) and ln of its number
     * of configurations, ln Z at beta = 0 (Ising: N ln 2). */
    void (*member_size)(void *state, double *sites, double *log_states);
    /* Optional (ensemble.runs > 1 needs it): sets every configuration to the
     * model's random start drawn for independent run `run` (run 0: the
     * start it was created with). */
    clmc_status (*fresh_start)(void *state, unsigned run);
    /* Optional: names and norm of member_observables' second value (above);
     * NULL: "abs_magnetization", "susceptibility", "binder", norm = sites. */
    void (*member_order)(void *state, clmc_member_order *out);
    /* Real energies (the O(n) models): member_observables' two buffers hold
     * cl_double instead of cl_int (the energy histogram then bins the unit
     * intervals [floor E, floor E + 1)). */
    bool real_members;
    /* Optional: members packed into the lanes of words (the EA spin glass's
     * msc layout): member_lanes returns 32 or 64 (0: one member per block of
     * bytes, as above), and members_buffer's *bytes_per_member is then the
     * bytes of one group of that many members, lane b of each of the
     * group's words (of member_lanes bits) holding member lanes g + b.  The
     * population is then copied at bit granularity
     * (cl/ensembles/population_lanes.cl) and kept in one process (no MPI
     * ranks); swap_members (above) then takes the bit-gathered population. */
    unsigned (*member_lanes)(void *state);
    /* Optional: true where the model computes the same bits on every device
     * (algorithm.reproducible): population annealing then weighs with its own
     * exp of IEEE operations and contracts nothing (cl/ensembles/population.cl,
     * PA_REPRODUCIBLE), so its resampling is device-independent too. */
    bool (*reproducible)(void *state);
} clmc_ensemble_hooks;

#endif

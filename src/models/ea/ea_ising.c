/* Host side of the Edwards-Anderson Ising spin glass: validation, kernel set-up
 * and launches (cl/ea/ea_ising.cl), replica energies and overlaps, and parallel
 * tempering; couplings in ea_couplings.c, disorder averages in
 * ea_estimate.c.
 *
 * Tempering: every (realization r, replica a) is a chain, i.e. a tempering
 * system (2 r + a) with one configuration per temperature, config = chain T +
 * place.  The overlap pairs the configurations of chains (r, 0) and (r, 1)
 * that are at the same temperature: set_betas derives that map from the engine's temperature indices
 * and uploads each configuration's partner for the measurement kernel.  msc
 * packs the configurations (r, a, place) of the W realizations of a word into
 * one stack; its lanes sit at different temperatures, and the update kernel
 * finds, for its one random number, the lanes whose temperature accepts a
 * move from prefix masks over the temperatures (lanes_below). */
#include "models/ea/ea_internal.h"
#include "models/ea/ea_ising.h"
#include "models/rng_streams.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/philox.h"
#include "runtime/defines.h"
#include "runtime/ranks.h"
#include "measure/measure.h"
#include "models/configuration_hash.h"
#include "models/lattice.h"


static const char *const series_columns[] = {"energy", "q2", "q4", NULL};


/* ---- Validation ---------------------------------------------------------- */

/* The msc-only keys: tempering energies, and the launch keys (which keep the
 * order) away from their automatic values.  update_items: the update's
 * work-items per colour pass; lattice_sites: a replica's sites. */
static clmc_status validate_launch_keys(const clmc_preset *p, bool msc, unsigned long long temperatures,
                                        unsigned long long update_items, unsigned long long lattice_sites)
{
    const char *energies = clmc_preset_string(p, "algorithm.tempering_energies");
    long long group = clmc_preset_int(p, "algorithm.update_group");
    long long sites = clmc_preset_int(p, "algorithm.energy_sites"), reverse = clmc_preset_int(p, "algorithm.reverse_odd");
    bool tempering = msc && ((temperatures > 1 && !clmc_preset_systems(p)->independent) || clmc_preset_is_population(p));
    bool pass = tempering && strcmp(energies, "measure") != 0;
    if (!tempering && strcmp(energies, "pass") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tempering_energies: \"%s\" is for layout \"msc\" with parallel "
                         "tempering or population annealing only (give \"pass\")", energies);
    if (!msc && group != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.update_group: %lld is for layout \"msc\" only (give 0)", group);
    if (!msc && reverse != -1)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.reverse_odd: %lld is for layout \"msc\" only (give -1)", reverse);
    if (group != 0 && update_items % (unsigned long long)group != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.update_group: %lld must divide the update's %llu work-items "
                         "((realizations / word_bits) x temperatures x sites / 2)", group, update_items);
    long long resident_group = clmc_preset_int(p, "algorithm.resident_group");
    if (resident_group != 0 && !(msc && clmc_preset_is_population(p)))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.resident_group: %lld is for layout \"msc\" with population "
                         "annealing only (give 0)", resident_group);
    if (resident_group & (resident_group - 1))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.resident_group: %lld is not a power of two", resident_group);
    size_t streams = ea_resident_streams((size_t)lattice_sites);
    if ((unsigned long long)resident_group > streams)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.resident_group: %lld exceeds the %zu sites of a colour rounded up "
                         "to a power of two (at most 256)", resident_group, streams);
    if (!pass && sites != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.energy_sites: %lld is for layout \"msc\" with parallel tempering "
                         "or population annealing and tempering_energies \"pass\" or \"check\" only (give 0)", sites);
    return CLMC_OK;
}

/* Independent systems: each realization (its two replicas at every beta) is
 * a system, numbered from ensemble.first_system in its couplings, initial
 * spins and Metropolis streams.  With shared random numbers (msc, or naive
 * with shared_randoms) a realization draws those of its run-wide word
 * (first_system + r) / word_bits, so it re-runs alone with shared_randoms;
 * msc words must then start at a multiple of word_bits. */
static clmc_status validate_independent(const clmc_preset *p, bool msc, long long word_bits,
                                        unsigned long long realizations, unsigned long long temperatures)
{
    unsigned first = clmc_preset_systems(p)->first_system;
    if (clmc_preset_systems(p)->copies != 1)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.copies: ea_ising's systems at each beta are its model.realizations; "
                         "give copies 1, got %u", clmc_preset_systems(p)->copies);
    if (msc && first % (unsigned long long)word_bits != 0)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.first_system: layout \"msc\" packs algorithm.word_bits = %lld "
                         "realizations per word, so its first realization must be a multiple of %lld, got %u "
                         "(one realization re-runs alone with layout \"naive\" and shared_randoms)",
                         word_bits, word_bits, first);
    unsigned long long last = first + realizations;
    if (last * temperatures >= (1ULL << 24))
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.first_system: realizations up to %llu x %llu temperatures exceed the "
                         "2^24 - 1 configurations the random streams number", last, temperatures);
    return CLMC_OK;
}

/* Population annealing (docs/ensembles.md): the members share one disorder
 * realization, so model.realizations is 1; integer couplings (the members'
 * energies are integers) and a random number of its own for every member
 * (msc: of every lane, LANE_RANDOMS); msc packs word_bits members per word,
 * so the population is a multiple of word_bits. */
static clmc_status validate_population(const clmc_preset *p, bool msc, const char *couplings)
{
    long long realizations = clmc_preset_int(p, "model.realizations");
    long long population = clmc_preset_int(p, "ensemble.population"), word_bits = clmc_preset_int(p, "algorithm.word_bits");
    if (msc && (word_bits == 32 || word_bits == 64) && population % word_bits != 0)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.population: layout \"msc\" packs algorithm.word_bits = %lld "
                         "members per word and needs a multiple of %lld, got %lld%s", word_bits, word_bits, population,
                         word_bits == 64 && population % 32 == 0 ? " (or set algorithm.word_bits to 32)" : "");
    if (realizations != 1)
        return clmc_fail(CLMC_ERR_INPUT, "model.realizations: population annealing anneals one disorder realization "
                         "(its ensemble.population members share it); give 1, got %lld", realizations);
    if (strcmp(couplings, "gaussian") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "model.couplings: population annealing needs integer energies (bimodal or "
                         "uniform couplings), got \"gaussian\"");
    if (clmc_preset_bool(p, "algorithm.shared_randoms"))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.shared_randoms: population annealing gives every member its own "
                         "random numbers (copies of one member would share theirs); give false");
    return CLMC_OK;
}

/* ensemble.type "multicanonical" or "wang_landau": the walkers
 * (cl/ea/muca_ea.cl) hold one byte per spin and integer couplings, draw
 * their own random numbers and start at random. */
static bool density_ensemble(const clmc_preset *p)
{
    const char *type = clmc_preset_has(p, "ensemble.type") ? clmc_preset_string(p, "ensemble.type") : "";
    return strcmp(type, "multicanonical") == 0 || strcmp(type, "wang_landau") == 0;
}

static clmc_status validate_density(const clmc_preset *p, bool msc, const char *couplings)
{
    const char *type = clmc_preset_string(p, "ensemble.type");
    if (msc)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.layout: the %s walkers of ea_ising hold one byte per spin; give "
                         "\"naive\", not \"msc\"", type);
    if (strcmp(couplings, "gaussian") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "model.couplings: %s needs integer energies (bimodal or uniform couplings), "
                         "got \"gaussian\"", type);
    if (clmc_preset_bool(p, "algorithm.shared_randoms"))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.shared_randoms: the %s walkers draw their own random numbers; "
                         "give false", type);
    if (strcmp(clmc_preset_string(p, "model.start"), "random") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "model.start: the %s walkers start at random; give \"random\"", type);
    /* One density of states per realization (units one after another): no
     * checkpoint yet, refused here rather than when the first one is due. */
    const clmc_run_settings *run = clmc_preset_run(p);
    if (run->checkpoint_every_sweeps || run->checkpoint_every_seconds > 0)
        return clmc_fail(CLMC_ERR_INPUT, "run.checkpoint_every: the %s walkers of ea_ising (a density of states per "
                         "realization) cannot checkpoint yet; remove the key (or give 0)", type);
    return CLMC_OK;
}

static clmc_status ea_validate(const clmc_preset *p)
{
    int dim = (int)clmc_preset_int(p, "model.dim"), edge = (int)clmc_preset_int(p, "model.L");
    long long realizations = clmc_preset_int(p, "model.realizations");
    const char *couplings = clmc_preset_string(p, "model.couplings");
    bool msc = strcmp(clmc_preset_string(p, "algorithm.layout"), "msc") == 0;
    bool population = clmc_preset_is_population(p);
    if (density_ensemble(p)) CLMC_TRY(validate_density(p, msc, couplings));
    if (clmc_rng_from_preset(p) == CLMC_RNG_LCG64_RESEEDED && !(msc && population))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.rng: \"lcg64_reseeded\" is an option of population annealing "
                         "with layout \"msc\" (ensemble.type \"population_annealing\", the resident update); give "
                         "philox4x32_10 here");
    if (clmc_rng_from_preset(p) == CLMC_RNG_LCG64_RESEEDED &&
        (strcmp(clmc_preset_string(p, "algorithm.resident"), "off") == 0 ||
         strcmp(clmc_preset_string(p, "algorithm.tempering_energies"), "measure") == 0))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.rng: \"lcg64_reseeded\" draws in the resident msc update, which "
                         "algorithm.resident \"off\" or tempering_energies \"measure\" rule out; give philox4x32_10 "
                         "or remove those keys");
    if (population) {
        CLMC_TRY(validate_population(p, msc, couplings));
        realizations = clmc_preset_systems(p)->copies; /* the members, each a replica pair */
    }
    long long word_bits = clmc_preset_int(p, "algorithm.word_bits");
    unsigned long long sites = clmc_lattice_sites(dim, edge);
    unsigned long long temperatures = clmc_preset_betas(p, NULL, 0);
    if (word_bits != 32 && word_bits != 64)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.word_bits: must be 32 or 64, got %lld", word_bits);
    unsigned long long bonds_per_site = (unsigned long long)(dim > 2 ? dim : 2);
    unsigned long long words = ((unsigned long long)realizations + (unsigned long long)word_bits - 1) /
                               (unsigned long long)word_bits; /* population annealing's room: the last word partly */
    /* msc members: the kernels index words (2 per member word and site; one set of couplings) */
    unsigned long long indexed = msc ? 2 * words * sites : (unsigned long long)realizations * sites * bonds_per_site;
    if (population && indexed >= (1ULL << 32))
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.population: %lld members (replica pairs) of %llu sites exceed the "
                         "2^32 %s the kernels index", realizations, sites, msc ? "words" : "spins");
    if (population && realizations >= (1LL << 24))
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.population: %lld members (replica pairs) exceed the 2^24 - 1 the "
                         "random streams number", realizations);
    if ((unsigned long long)realizations * temperatures >= (1ULL << 24))
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.betas: %lld realizations x %llu temperatures exceed the 2^24 - 1 "
                         "chains' configurations the random streams number", realizations, temperatures);
    if (clmc_preset_systems(p)->independent)
        CLMC_TRY(validate_independent(p, msc, word_bits, (unsigned long long)realizations, temperatures));
    if (edge % 2 != 0)
        return clmc_fail(CLMC_ERR_INPUT, "model.L: must be even for the checkerboard update, got %d", edge);
    if (sites >= (1ULL << 31))
        return clmc_fail(CLMC_ERR_INPUT, "model.L: %d^%d sites exceed the 2^31 - 1 the kernels index", edge, dim);
    if (((msc && !population) || clmc_preset_bool(p, "algorithm.shared_randoms")) && strcmp(couplings, "uniform") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "model.couplings: \"uniform\" makes every realization the same system, and "
                         "the realizations of a word share their random numbers (layout \"msc\" or shared_randoms), "
                         "so they would merge into identical copies and the errors over realizations would mean "
                         "nothing; use layout \"naive\" without shared_randoms");
    if (msc && strcmp(couplings, "gaussian") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "model.couplings: bimodal couplings required for msc "
                         "(algorithm.layout \"msc\" packs one bit per coupling); got \"%s\"", couplings);
    if (msc && !population && realizations % word_bits != 0)
        return clmc_fail(CLMC_ERR_INPUT, "model.realizations: layout \"msc\" packs algorithm.word_bits = %lld "
                         "realizations per word and needs a multiple of %lld, got %lld%s", word_bits, word_bits,
                         realizations, word_bits == 64 && realizations % 32 == 0 ? " (or set algorithm.word_bits to 32)" : "");
    if (!(msc && population) &&
        (unsigned long long)realizations * temperatures * sites * (unsigned long long)(dim > 2 ? dim : 2) >= (1ULL << 32))
        return clmc_fail(CLMC_ERR_INPUT, "model.realizations: %lld realizations x %llu temperatures of %llu sites "
                         "exceed the 2^32 spins and couplings the kernels index", realizations, temperatures, sites);
    return validate_launch_keys(p, msc, temperatures, words * temperatures * (sites / 2), sites);
}

/* ---- Device set-up ---------------------------------------------------------- */

/* Work-groups per configuration (naive) or per stack (msc) of the measurement:
 * enough to keep a device busy on large lattices, one on small ones, and no
 * more than MEASURE_GROUPS_MAX in all. */
static void plan_measurement(ea_state *s)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    size_t limit = d->max_work_group_size < MEASURE_WG_MAX ? d->max_work_group_size : MEASURE_WG_MAX;
    /* naive: about 8 sites a work-item on small lattices, where a group of
     * 256 took 2 sites each and spent its time in the sums' tree (3D L = 8,
     * R = 1e6 members: 4.6 ms a population annealing step on an H200). */
    if (!s->msc && s->n_sites / 8 < limit) limit = s->n_sites / 8 > 0 ? s->n_sites / 8 : 1;
    s->measure_wg = clmc_power_of_two_at_most(limit);
    size_t units = s->msc ? s->stacks : s->configurations;
    /* msc work-items tally a word per site and unpack their counters once, so
     * they take more sites each (about 256) than naive ones (16), but the
     * groups still give every compute unit a few work-groups. */
    size_t groups = s->n_sites / (s->measure_wg * (s->msc ? 256 : 16));
    if (s->msc) {
        size_t busy = (4 * (size_t)d->compute_units + units - 1) / units;
        if (groups < busy) groups = busy;
    }
    size_t most = (s->n_sites + s->measure_wg - 1) / s->measure_wg; /* every work-item gets a site */
    groups = groups < 1 ? 1 : (groups > 64 ? 64 : groups);
    if (groups > most) groups = most;
    while (groups > 1 && units * groups > MEASURE_GROUPS_MAX) groups /= 2;
    if (s->msc) {
        /* Counts of 2^fold_rounds work-items below 2^TALLY_LEVELS_MAX, per
         * group below 2^32. */
        s->fold_rounds = 0;
        while (s->fold_rounds < 3 && ((size_t)2 << s->fold_rounds) <= s->measure_wg) s->fold_rounds++;
        size_t bonds = (size_t)s->n_sites * s->dim;
        size_t item_limit = (((size_t)1 << TALLY_LEVELS_MAX) - 1) >> s->fold_rounds;
        size_t item_groups = (bonds + s->measure_wg * item_limit - 1) / (s->measure_wg * item_limit);
        size_t group_groups = (size_t)((bonds + 0xFFFFFFFEull) / 0xFFFFFFFFull);
        if (groups < item_groups) groups = item_groups;
        if (groups < group_groups) groups = group_groups;
    }
    /* Counter levels for the largest count of 2^fold_rounds work-items. */
    size_t per_item = ((s->n_sites + groups * s->measure_wg - 1) / (groups * s->measure_wg)) * (size_t)s->dim;
    per_item <<= s->fold_rounds;
    s->tally_levels = 1;
    while (((size_t)1 << s->tally_levels) <= per_item) s->tally_levels++;
    s->measure_groups = groups;
    s->measure_global = units * s->measure_groups * s->measure_wg;
    size_t batch = TOTALS_BYTES_MAX / (3 * (size_t)s->configurations * sizeof(cl_long));
    batch = batch > 1 ? batch - 1 : 1; /* one slot more for the tempering energies */
    s->measure_batch = batch < 1 ? 1 : (batch > MEASURE_BATCH_MAX ? MEASURE_BATCH_MAX : (unsigned)batch);
    if (s->population) s->measure_batch = 0; /* the members are measured through the spare slot only */
}

/* options: the build options, kept for the energy pass's program. */
static clmc_status build_kernels(ea_state *s, clmc_defines *options)
{
    s->exchange_fused = ea_exchange_fits(s);
    const struct {
        const char *name;
        long long value;
    } defines[] = {
        {"DIM", s->dim}, {"EDGE", s->edge}, {"REALIZATIONS", s->realizations}, {"TEMPERATURES", s->temperatures},
        {"MSC", s->msc}, {"GAUSSIAN", s->couplings == CLMC_EA_GAUSSIAN}, {"UNIFORM", s->couplings == CLMC_EA_UNIFORM},
        {"SHARED_RANDOMS", s->shared_randoms}, {"WORD_BITS", s->word_bits}, {"MEASURE_WG", (long long)s->measure_wg},
        {"MEASURE_GROUPS", (long long)s->measure_groups}, {"TALLY_LEVELS", s->tally_levels},
        {"FOLD_ROUNDS", s->fold_rounds}, {"REVERSE_ODD", s->reverse_odd},
        {"EXCHANGE_SPREAD", s->exchange_spread}, {"PLACE_BITS", s->place_bits},
        {"SHARED_DISORDER", s->population}, {"LANE_RANDOMS", s->population && s->msc},
    };
    clmc_defines_text(options, "-cl-std=CL1.2");
    for (size_t i = 0; i < sizeof defines / sizeof defines[0]; i++) /* the last two: as before when 0 */
        if (defines[i].value || (strcmp(defines[i].name, "SHARED_DISORDER") != 0 && strcmp(defines[i].name, "LANE_RANDOMS") != 0))
            clmc_defines_int(options, defines[i].name, defines[i].value);
    CLMC_TRY(clmc_defines_status(options));
    clmc_defines main_options = {0};
    clmc_defines_text(&main_options, clmc_defines_string(options));
    clmc_defines_int(&main_options, "ENERGY_PASS", 0);
    CLMC_TRY(clmc_defines_build(s->rt, "ea/ea_ising.cl", &main_options, &s->program));
    CLMC_TRY(clmc_kernel_create(s->program, s->msc ? "ea_msc_init" : "ea_naive_init", &s->init));
    CLMC_TRY(clmc_kernel_create(s->program, s->msc ? "ea_msc_update" : "ea_naive_update", &s->update));
    CLMC_TRY(clmc_kernel_set_first_system(s->init, s->first_system));
    CLMC_TRY(clmc_kernel_set_first_system(s->update, s->first_system));
    CLMC_TRY(clmc_kernel_create(s->program, s->msc ? "ea_msc_measure" : "ea_naive_measure", &s->measure));
    return clmc_kernel_create(s->program, "ea_sum_groups", &s->sum_groups);
}

static size_t spin_bytes(const ea_state *s)
{
    return s->msc ? (size_t)s->stacks * s->n_sites * ea_word_bytes(s) : (size_t)s->configurations * s->n_sites;
}

static clmc_status create_buffer(ea_state *s, size_t bytes, void *host, cl_mem *out, const char *what)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    if (bytes > d->max_alloc_bytes)
        return clmc_fail(CLMC_ERR_INPUT, "model.realizations: the %s need %zu bytes in one buffer; %s allows %llu",
                         what, bytes, d->name, (unsigned long long)d->max_alloc_bytes);
    return clmc_buffer_create(s->rt, bytes, host, what, out);
}

/* Gaussian couplings are drawn on the host (floating point), the others by
 * the ea_couplings kernel from the same integer Philox draws. */
static clmc_status upload_couplings(ea_state *s)
{
    if (s->couplings != CLMC_EA_GAUSSIAN) {
        cl_kernel fill;
        CLMC_TRY(create_buffer(s, ea_coupling_bytes(s), NULL, &s->bonds, "couplings"));
        CLMC_TRY(clmc_kernel_create(s->program, "ea_couplings", &fill));
        size_t words = s->msc ? ea_coupling_words(s) : s->disorders;
        size_t global = words * ea_bond_count(s);
        cl_int err = clSetKernelArg(fill, 0, sizeof(cl_mem), &s->bonds);
        if (err == CL_SUCCESS) err = clSetKernelArg(fill, 1, sizeof(cl_uint), &s->seed_lo);
        if (err == CL_SUCCESS) err = clSetKernelArg(fill, 2, sizeof(cl_uint), &s->seed_hi);
        clmc_status status = clmc_kernel_set_first_system(fill, s->first_system);
        if (status == CLMC_OK)
            status = err == CL_SUCCESS ? clmc_enqueue(s->rt, fill, 1, &global, NULL, CLMC_UNTIMED)
                                       : clmc_fail(CLMC_ERR_DEVICE, "clSetKernelArg(ea_couplings): %s",
                                                   clmc_cl_error_name(err));
        CLMC_CL_WARN(clReleaseKernel(fill));
        return status;
    }
    void *host = calloc(1, ea_coupling_bytes(s));
    if (!host) return clmc_fail(CLMC_ERR_OTHER, "out of host memory for the couplings");
    ea_fill_couplings(s, host);
    clmc_status status = create_buffer(s, ea_coupling_bytes(s), host, &s->bonds, "couplings");
    free(host);
    return status;
}

static void clear_lanes(const ea_state *s, void *words, size_t first, size_t count)
{
    memset((char *)words + first * ea_word_bytes(s), 0, count * ea_word_bytes(s));
}

static void set_lane(const ea_state *s, void *words, size_t at, unsigned lane)
{
    if (s->word_bits == 64) ((cl_ulong *)words)[at] |= (cl_ulong)1 << lane;
    else ((cl_uint *)words)[at] |= (cl_uint)1 << lane;
}

/* Lanes of msc stack `stack` (word, replica, place) by temperature and by
 * the place of their partners: a lane at temperature t joins rows t + 1 ..
 * T of lanes_below (prefix unions over the temperatures) and the row of its
 * partner's place in partner_lanes. */
static void map_stack(ea_state *s, size_t stack)
{
    size_t t_count = s->temperatures, below = stack * (t_count + 1), partner = stack * t_count;
    size_t word = stack / (2 * t_count), replica = stack / t_count % 2, place = stack % t_count;
    clear_lanes(s, s->lanes_below_host, below, t_count + 1);
    clear_lanes(s, s->partner_lanes_host, partner, t_count);
    for (unsigned lane = 0; lane < s->word_bits && s->word_bits * word + lane < s->realizations; lane++) {
        /* (population annealing's last word may hold fewer) */
        size_t chain = 2 * (s->word_bits * word + lane) + replica, other = chain ^ 1;
        cl_uint t = s->temperature_of[chain * t_count + place];
        set_lane(s, s->lanes_below_host, below + t + 1, lane);
        set_lane(s, s->partner_lanes_host, partner + s->config_at[other * t_count + t] - other * t_count, lane);
    }
    for (size_t j = 2; j <= t_count; j++) {
        if (s->word_bits == 64) ((cl_ulong *)s->lanes_below_host)[below + j] |= ((cl_ulong *)s->lanes_below_host)[below + j - 1];
        else ((cl_uint *)s->lanes_below_host)[below + j] |= ((cl_uint *)s->lanes_below_host)[below + j - 1];
    }
}

/* From the temperature of every configuration: config_at ([chain][temperature]
 * -> configuration) and, naive, each configuration's partner (the other
 * replica's configuration at the same temperature) or, msc, every stack's
 * lane masks (map_stack).  One parallel region, loops without divisions by
 * the (run-time) number of temperatures. */
static void map_temperatures(ea_state *s)
{
    long t_count = (long)s->temperatures, chains = 2 * (long)s->realizations, stacks = (long)s->stacks;
#pragma omp parallel if (s->configurations > 4096)
    {
#pragma omp for schedule(static)
        for (long chain = 0; chain < chains; chain++) {
            const cl_uint *temperature = s->temperature_of + chain * t_count;
            cl_uint *at = s->config_at + chain * t_count;
            for (long place = 0; place < t_count; place++) at[temperature[place]] = (cl_uint)(chain * t_count + place);
        }
        if (s->msc) {
#pragma omp for schedule(static)
            for (long stack = 0; stack < stacks; stack++) map_stack(s, (size_t)stack);
        } else {
#pragma omp for schedule(static)
            for (long chain = 0; chain < chains; chain++)
                for (long t = 0; t < t_count; t++)
                    s->partners_host[s->config_at[chain * t_count + t]] = s->config_at[(chain ^ 1) * t_count + t];
        }
    }
}

/* naive: Metropolis thresholds and beta of every configuration (after
 * temperature_of); msc: thresholds per temperature, fixed, [k][t]. */
static void fill_acceptance(ea_state *s)
{
    if (!s->msc && s->population) { /* row 0 only: the members share it (ea_naive_update, per_config 0) */
        clmc_metropolis_thresholds(s->temperature_betas[0], s->thresholds_host);
        s->betas_host[0] = (cl_float)s->temperature_betas[0];
        return;
    }
    if (s->msc) {
        for (cl_uint t = 0; t < s->temperatures; t++) {
            cl_uint classes[THRESHOLD_CLASSES];
            clmc_metropolis_thresholds(s->temperature_betas[t], classes);
            for (unsigned k = 0; k < THRESHOLD_CLASSES; k++) s->thresholds_host[k * s->temperatures + t] = classes[k];
        }
        return;
    }
    for (cl_uint c = 0; c < s->configurations; c++) {
        double beta = s->temperature_betas[s->temperature_of[c]];
        clmc_metropolis_thresholds(beta, s->thresholds_host + THRESHOLD_CLASSES * c);
        s->betas_host[c] = (cl_float)beta;
    }
}

static size_t lanes_below_bytes(const ea_state *s)
{
    return (size_t)s->stacks * (s->temperatures + 1) * ea_word_bytes(s);
}

static size_t partner_lanes_bytes(const ea_state *s)
{
    return (size_t)s->stacks * s->temperatures * ea_word_bytes(s);
}

/* msc: lanes_below, then partner_lanes, in one buffer (one upload per exchange). */
static size_t lane_masks_bytes(const ea_state *s)
{
    return lanes_below_bytes(s) + partner_lanes_bytes(s);
}

/* Initially configuration chain T + t of every chain sits at temperature t. */
static clmc_status upload_temperatures(ea_state *s)
{
    size_t n = s->configurations;
    s->thresholds_host = calloc(n * THRESHOLD_CLASSES, sizeof *s->thresholds_host);
    s->betas_host = calloc(n, sizeof *s->betas_host);
    s->partners_host = malloc(n * sizeof *s->partners_host);
    s->config_at = malloc(n * sizeof *s->config_at);
    s->temperature_of = malloc(n * sizeof *s->temperature_of);
    s->lanes_below_host = malloc(s->msc ? lane_masks_bytes(s) : 1);
    if (!s->thresholds_host || !s->betas_host || !s->partners_host || !s->config_at || !s->temperature_of ||
        !s->lanes_below_host)
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    s->partner_lanes_host = s->msc ? (char *)s->lanes_below_host + lanes_below_bytes(s) : NULL;
    for (cl_uint c = 0; c < s->configurations; c++) s->temperature_of[c] = c % s->temperatures;
    fill_acceptance(s);
    map_temperatures(s);
    CLMC_TRY(create_buffer(s, n * THRESHOLD_CLASSES * sizeof *s->thresholds_host, s->thresholds_host,
                           &s->thresholds, "Metropolis thresholds"));
    if (!s->msc) {
        CLMC_TRY(create_buffer(s, n * sizeof *s->betas_host, s->betas_host, &s->betas, "betas"));
        return create_buffer(s, n * sizeof *s->partners_host, s->partners_host, &s->partners, "overlap partners");
    }
    return create_buffer(s, lane_masks_bytes(s), s->lanes_below_host, &s->lane_masks, "lane masks");
}

static clmc_status allocate_buffers(ea_state *s)
{
    CLMC_TRY(create_buffer(s, spin_bytes(s), NULL, &s->spins, "spins"));
    CLMC_TRY(upload_couplings(s));
    CLMC_TRY(upload_temperatures(s));
    size_t per_slot = 3 * (size_t)s->configurations, totals = per_slot * (s->measure_batch + 1);
    CLMC_TRY(create_buffer(s, per_slot * s->measure_groups * sizeof(cl_long), NULL, &s->partials,
                           "measurement partials"));
    CLMC_TRY(create_buffer(s, totals * sizeof(cl_long), NULL, &s->totals, "measurement totals"));
    s->totals_host = malloc(totals * sizeof(cl_long));
    s->energy_sum = calloc(3 * (size_t)s->realizations, sizeof(double));
    if (!s->totals_host || !s->energy_sum) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    s->q2_sum = s->energy_sum + s->realizations;
    s->q4_sum = s->q2_sum + s->realizations;
    return CLMC_OK;
}

static clmc_status set_kernel_arguments(ea_state *s)
{
    CLMC_CL_TRY(clSetKernelArg(s->init, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->init, 1, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->init, 2, sizeof(cl_uint), &s->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(s->init, 3, sizeof(cl_uint), &s->ordered_start));
    cl_uint run = 0;
    CLMC_CL_TRY(clSetKernelArg(s->init, 4, sizeof(cl_uint), &run));
    cl_uint arg = 0;
    CLMC_CL_TRY(clSetKernelArg(s->update, arg++, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->update, arg++, sizeof(cl_mem), &s->bonds));
    CLMC_CL_TRY(clSetKernelArg(s->update, arg++, sizeof(cl_mem), &s->thresholds));
    CLMC_CL_TRY(clSetKernelArg(s->update, arg++, sizeof(cl_mem), s->msc ? &s->lane_masks : &s->betas));
    CLMC_CL_TRY(clSetKernelArg(s->update, arg++, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->update, arg++, sizeof(cl_uint), &s->seed_hi));
    if (!s->msc) { /* after sweep and colour (update_colour): population annealing's members share row 0 */
        cl_uint per_config = !s->population;
        CLMC_CL_TRY(clSetKernelArg(s->update, 8, sizeof(cl_uint), &per_config));
    }
    arg = 0;
    CLMC_CL_TRY(clSetKernelArg(s->measure, arg++, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->measure, arg++, sizeof(cl_mem), &s->bonds));
    CLMC_CL_TRY(clSetKernelArg(s->measure, arg++, sizeof(cl_mem), s->msc ? &s->lane_masks : &s->partners));
    CLMC_CL_TRY(clSetKernelArg(s->measure, arg++, sizeof(cl_mem), &s->partials));
    CLMC_CL_TRY(clSetKernelArg(s->sum_groups, 0, sizeof(cl_mem), &s->partials));
    CLMC_CL_TRY(clSetKernelArg(s->sum_groups, 1, sizeof(cl_mem), &s->totals));
    return CLMC_OK;
}

static clmc_status initialise_spins(ea_state *s)
{
    size_t global = s->msc ? (size_t)s->stacks * s->n_sites : (size_t)s->configurations * s->n_sites;
    return clmc_enqueue(s->rt, s->init, 1, &global, NULL, CLMC_UNTIMED);
}

static clmc_status read_preset(ea_state *s, const clmc_preset *p)
{
    s->dim = (int)clmc_preset_int(p, "model.dim");
    s->edge = (int)clmc_preset_int(p, "model.L");
    s->n_sites = (cl_uint)clmc_lattice_sites(s->dim, s->edge);
    s->population = clmc_preset_is_population(p);
    s->ranks_chained = clmc_preset_systems(p)->ranks_chained;
    s->realizations = s->population ? clmc_preset_systems(p)->copies
                                    : (cl_uint)clmc_preset_int(p, "model.realizations");
    s->disorders = s->population ? 1 : s->realizations;
    s->temperatures = (cl_uint)clmc_preset_betas(p, NULL, 0);
    s->temperature_betas = malloc(s->temperatures * sizeof *s->temperature_betas);
    if (!s->temperature_betas) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_preset_betas(p, s->temperature_betas, s->temperatures);
    s->beta = s->temperature_betas[0];
    s->configurations = 2 * s->realizations * s->temperatures;
    s->word_bits = (cl_uint)clmc_preset_int(p, "algorithm.word_bits"); /* validated: 32 or 64 */
    s->stacks = 2 * ((s->realizations + s->word_bits - 1) / s->word_bits) * s->temperatures;
    s->couplings = clmc_ea_couplings_from_name(clmc_preset_string(p, "model.couplings"));
    s->msc = strcmp(clmc_preset_string(p, "algorithm.layout"), "msc") == 0;
    s->shared_randoms = s->msc || clmc_preset_bool(p, "algorithm.shared_randoms");
    s->lane_lcg = clmc_rng_from_preset(p) == CLMC_RNG_LCG64_RESEEDED;
    s->independent = clmc_preset_systems(p)->independent;
    s->first_system = clmc_preset_systems(p)->first_system;
    s->ordered_start = strcmp(clmc_preset_string(p, "model.start"), "ordered") == 0;
    s->seed = clmc_preset_run(p)->seed;
    s->seed_lo = (cl_uint)(s->seed & 0xffffffffu);
    s->seed_hi = (cl_uint)(s->seed >> 32);
    const char *energies = clmc_preset_string(p, "algorithm.tempering_energies");
    s->energy_mode = strcmp(energies, "measure") == 0 ? EA_ENERGIES_MEASURE
                     : strcmp(energies, "check") == 0 ? EA_ENERGIES_CHECK
                                                      : EA_ENERGIES_PASS;
    s->update_wg = (size_t)clmc_preset_int(p, "algorithm.update_group");
    s->energy_sites = (unsigned)clmc_preset_int(p, "algorithm.energy_sites");
    s->resident_group = (size_t)clmc_preset_int(p, "algorithm.resident_group");
    /* Left automatic (no tuned or built-in value): in order. */
    s->reverse_odd = clmc_preset_int(p, "algorithm.reverse_odd") == 1;
    return CLMC_OK;
}

static void ea_destroy(void *state);

/* algorithm.update_group within the update kernel's limit on this device. */
static clmc_status check_update_group(const ea_state *s)
{
    size_t limit;
    if (!s->update_wg) return CLMC_OK;
    CLMC_TRY(clmc_kernel_group_limit(s->rt, s->update, &limit));
    if (s->update_wg > limit)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.update_group: %zu exceeds the %zu work-items the update kernel "
                         "can have per work-group on %s", s->update_wg, limit, clmc_runtime_device(s->rt)->name);
    return CLMC_OK;
}

static clmc_status ea_setup(ea_state *s, const clmc_preset *p)
{
    clmc_defines options = {0};
    CLMC_TRY(read_preset(s, p));
    plan_measurement(s);
    clmc_status status = build_kernels(s, &options);
    if (status == CLMC_OK) status = check_update_group(s);
    if (status == CLMC_OK) status = allocate_buffers(s);
    if (status == CLMC_OK) status = set_kernel_arguments(s);
    if (status == CLMC_OK) status = ea_energy_pass_create(s, clmc_defines_string(&options));
    if (status == CLMC_OK) status = ea_member_pass_create(s, clmc_defines_string(&options));
    if (status == CLMC_OK)
        status = ea_resident_create(s, clmc_defines_string(&options), clmc_preset_string(p, "algorithm.resident"));
    if (status == CLMC_OK && s->lane_lcg && !s->resident_update)
        status = clmc_fail(CLMC_ERR_INPUT, "algorithm.rng: \"lcg64_reseeded\" draws in the resident msc update, "
                           "which this run does not take (%s); set algorithm.resident \"on\" or give philox4x32_10",
                           s->resident_note);
    clmc_defines_free(&options);
    CLMC_TRY(status);
    return initialise_spins(s);
}

static clmc_status ea_create(clmc_runtime *rt, clmc_preset *p, void **state, clmc_model_shape *shape)
{
    ea_state *s = calloc(1, sizeof *s);
    if (!s) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    s->rt = rt;
    clmc_status status = ea_setup(s, p);
    if (status != CLMC_OK) {
        ea_destroy(s);
        return status;
    }
    /* The launch keys as resolved, for result.json. */
    if (s->msc) clmc_preset_set_int(p, "algorithm.reverse_odd", s->reverse_odd);
    if (s->energy_update || s->member_update) clmc_preset_set_int(p, "algorithm.energy_sites", s->energy_sites);
    if (s->msc && s->resident_update) clmc_preset_set_int(p, "algorithm.resident_group", (long long)s->resident_wg);
    /* Compulsory traffic per spin update, neighbours and repeated couplings
     * coming from caches: the spin is read, written and read again as a
     * neighbour in the other colour's pass; the dim couplings of a site are
     * read in both passes and serve both replicas.  msc: per word of word_bits. */
    double word_size = (double)ea_word_bytes(s);
    double coupling_size = s->msc ? word_size : (s->couplings == CLMC_EA_GAUSSIAN ? 4.0 : 1.0);
    double bytes_per_word = 3.0 * (s->msc ? word_size : 1.0) + s->dim * coupling_size;
    double bytes_per_update = s->msc ? bytes_per_word / s->word_bits : bytes_per_word;
    shape->series_columns = series_columns;
    shape->measure_batch = s->measure_batch ? s->measure_batch : 1;
    shape->updates_per_sweep = (double)s->configurations * s->n_sites;
    shape->bytes_per_sweep = shape->updates_per_sweep * bytes_per_update;
    /* One temperature: series rows are disorder averages; tempering and
     * independent systems: one row per configuration, each chain
     * (realization, replica) a tempering system; an independent system is a
     * realization, its 2 T configurations. */
    shape->n_systems = s->temperatures > 1 || s->independent ? 2 * s->realizations : 1;
    if (s->population) shape->n_systems = s->realizations; /* population annealing's members, replica pairs */
    shape->n_temperatures = s->temperatures;
    shape->configs_per_system = s->independent ? 2 * s->temperatures : 1;
    *state = s;
    return CLMC_OK;
}

static void ea_destroy(void *state)
{
    ea_state *s = state;
    if (!s) return;
    if (s->init) CLMC_CL_WARN(clReleaseKernel(s->init));
    if (s->update) CLMC_CL_WARN(clReleaseKernel(s->update));
    if (s->measure) CLMC_CL_WARN(clReleaseKernel(s->measure));
    if (s->sum_groups) CLMC_CL_WARN(clReleaseKernel(s->sum_groups));
    if (s->member_totals) CLMC_CL_WARN(clReleaseKernel(s->member_totals));
    if (s->program) CLMC_CL_WARN(clReleaseProgram(s->program));
    ea_energy_pass_destroy(s);
    cl_mem buffers[] = {s->spins,    s->bonds,    s->thresholds, s->betas,         s->lane_masks,
                        s->partners, s->partials, s->totals,     s->member_energy, s->member_overlap};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i]) CLMC_CL_WARN(clReleaseMemObject(buffers[i]));
    free(s->totals_host);
    free(s->energy_sum);
    free(s->temperature_betas);
    free(s->thresholds_host);
    free(s->betas_host);
    free(s->partners_host);
    free(s->config_at);
    free(s->temperature_of);
    free(s->lanes_below_host); /* partner_lanes_host included */
    free(s);
}

/* ---- Sweeps and measurements ----------------------------------------------- */

/* The update kernel's pass over the sites of one colour. */
static clmc_status update_colour(ea_state *s, cl_uint sweep, cl_uint colour)
{
    cl_uint first_loop_arg = 6;
    CLMC_CL_TRY(clSetKernelArg(s->update, first_loop_arg, sizeof(cl_uint), &sweep));
    CLMC_CL_TRY(clSetKernelArg(s->update, first_loop_arg + 1, sizeof(cl_uint), &colour));
    size_t quads = (s->configurations + 3) / 4; /* naive: four configurations per work-item */
    size_t global = (s->msc ? (size_t)s->stacks / 2 : quads) * (s->n_sites / 2); /* msc: both replicas per work-item */
    /* A work-group size only changes the launch shape: every site draws its
     * own counter-based random numbers.  Checked by validate and
     * check_update_group. */
    return clmc_enqueue(s->rt, s->update, 1, &global, s->update_wg ? &s->update_wg : NULL, CLMC_TIMED);
}

static clmc_status ea_sweep(void *state, uint64_t sweep_index)
{
    ea_state *s = state;
    s->pass_energies_ready = false;
    s->members_measured = false;
    for (cl_uint colour = 0; colour < 2; colour++) CLMC_TRY(update_colour(s, (cl_uint)sweep_index, colour));
    return CLMC_OK;
}

/* Sweeps [first, first + count), one at a time; before population
 * annealing's member_observables (CLMC_MEASURE_MEMBERS) the last one's
 * colour-1 pass is the member pass where it was built (msc), which measures
 * the members on the way (the same integers as ea_member_totals). */
static clmc_status ea_sweeps(void *state, uint64_t first, uint64_t count, int measure_slot, bool *measured)
{
    ea_state *s = state;
    bool members = measure_slot == CLMC_MEASURE_MEMBERS && count > 0;
    *measured = false;
    if (s->resident_update) { /* the same members bit for bit, a step's sweeps and their measurement in one launch */
        s->members_measured = *measured = members;
        return ea_resident_sweeps(s, first, count, members);
    }
    members = members && s->member_update;
    for (uint64_t t = first; t < first + count - members; t++) CLMC_TRY(ea_sweep(s, t));
    if (!members) return CLMC_OK;
    CLMC_TRY(update_colour(s, (cl_uint)(first + count - 1), 0));
    CLMC_TRY(ea_member_pass_enqueue(s, (cl_uint)(first + count - 1)));
    s->members_measured = *measured = true;
    return CLMC_OK;
}

/* result.json performance.resident (docs/results.md), for population
 * annealing: msc with its sites of a colour per work-item, naive with its
 * configurations per work-group. */
static void ea_describe_update(void *state, cJSON *performance)
{
    const ea_state *s = state;
    if (!s->population) return;
    clmc_describe_resident(performance, s->resident_update ? NULL : s->resident_note, s->resident_launches,
                           s->resident_sweeps, s->resident_wg, s->msc ? "sites_per_item" : "configs_per_group",
                           s->msc ? (double)s->resident_sites : 4.0 * (double)s->resident_quads);
}

/* msc tempering: the last colour pass also counts the energies, which
 * ea_energies then reads instead of measuring them. */
static clmc_status ea_sweep_before_energies(void *state, uint64_t sweep_index)
{
    ea_state *s = state;
    if (!ea_energy_pass_available(s)) return ea_sweep(state, sweep_index);
    CLMC_TRY(update_colour(s, (cl_uint)sweep_index, 0));
    return ea_energy_pass_enqueue(s, (cl_uint)sweep_index);
}

/* One measurement into totals slot `slot`; energies only (tempering) without
 * the overlaps. */
static clmc_status measure_into(ea_state *s, unsigned slot, bool with_overlap)
{
    cl_uint slot_arg = slot, overlap_arg = with_overlap;
    CLMC_CL_TRY(clSetKernelArg(s->measure, 4, sizeof(cl_uint), &overlap_arg));
    CLMC_TRY(clmc_enqueue(s->rt, s->measure, 1, &s->measure_global, &s->measure_wg, CLMC_UNTIMED));
    CLMC_CL_TRY(clSetKernelArg(s->sum_groups, 2, sizeof(cl_uint), &slot_arg));
    size_t items = 3 * (size_t)s->configurations;
    return clmc_enqueue(s->rt, s->sum_groups, 1, &items, NULL, CLMC_UNTIMED);
}

static clmc_status ea_measure(void *state, unsigned slot)
{
    return measure_into(state, slot, true);
}

typedef struct {
    double energy; /* per spin, mean of both replicas */
    double overlap;
} realization_sample;

/* Total k (0: bond sum, 1: overlap) of configuration `config` in one slot's totals. */
static cl_long total(const cl_long *slot_totals, size_t config, unsigned k)
{
    return slot_totals[3 * config + k];
}

static double coupling_scale(const ea_state *s)
{
    return s->couplings == CLMC_EA_GAUSSIAN ? COUPLING_FIXED_POINT : 1.0;
}

/* Without tempering configuration 2 r + a is replica a of realization r. */
static realization_sample sample_of(const ea_state *s, const cl_long *slot_totals, size_t r)
{
    cl_long bonds0 = total(slot_totals, 2 * r, 0), bonds1 = total(slot_totals, 2 * r + 1, 0);
    cl_long overlap = total(slot_totals, 2 * r, 1);
    realization_sample sample = {-((double)bonds0 + (double)bonds1) / (2.0 * coupling_scale(s) * s->n_sites),
                                 (double)overlap / s->n_sites};
    return sample;
}

/* Row of one measurement: means over realizations; the per-realization
 * time sums are updated on the way. */
static void collect_slot(ea_state *s, const cl_long *slot_totals, double *row)
{
    double energy = 0, q2 = 0, q4 = 0;
    for (cl_uint r = 0; r < s->realizations; r++) {
        realization_sample sample = sample_of(s, slot_totals, r);
        double square = sample.overlap * sample.overlap;
        s->energy_sum[r] += sample.energy;
        s->q2_sum[r] += square;
        s->q4_sum[r] += square * square;
        energy += sample.energy;
        q2 += square;
        q4 += square * square;
    }
    row[0] = energy / s->realizations;
    row[1] = q2 / s->realizations;
    row[2] = q4 / s->realizations;
    s->measurements++;
}

/* Tempering: one row per configuration, energy per spin and q^2, q^4 of its
 * overlap with its partner (the two replicas' rows carry the same q). */
static void collect_configurations(const ea_state *s, const cl_long *slot_totals, double *rows)
{
    for (cl_uint c = 0; c < s->configurations; c++) {
        double q = (double)total(slot_totals, c, 1) / s->n_sites, square = q * q;
        rows[3 * (size_t)c] = -(double)total(slot_totals, c, 0) / (coupling_scale(s) * s->n_sites);
        rows[3 * (size_t)c + 1] = square;
        rows[3 * (size_t)c + 2] = square * square;
    }
}

static clmc_status read_totals(ea_state *s, unsigned first_slot, unsigned n_slots)
{
    size_t bytes = 3 * (size_t)s->configurations * sizeof(cl_long);
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->totals, CL_TRUE, first_slot * bytes,
                                    n_slots * bytes, s->totals_host, 0, NULL, NULL));
    return CLMC_OK;
}

static clmc_status ea_collect(void *state, unsigned n_slots, double *rows)
{
    ea_state *s = state;
    CLMC_TRY(read_totals(s, 0, n_slots));
    for (unsigned slot = 0; slot < n_slots; slot++) {
        const cl_long *slot_totals = s->totals_host + slot * 3 * (size_t)s->configurations;
        if (s->temperatures > 1 || s->independent) {
            collect_configurations(s, slot_totals, rows + 3 * (size_t)slot * s->configurations);
            s->measurements++;
        } else {
            collect_slot(s, slot_totals, rows + 3 * (size_t)slot);
        }
    }
    return CLMC_OK;
}

/* ---- Parallel tempering ------------------------------------------------------ */

/* Total energies H of all configurations (exact bond sums), measured into
 * the spare batch slot. */
static clmc_status measured_energies(ea_state *s, double *energies)
{
    CLMC_TRY(measure_into(s, s->measure_batch, false));
    CLMC_TRY(read_totals(s, s->measure_batch, 1));
    for (cl_uint c = 0; c < s->configurations; c++)
        energies[c] = -(double)total(s->totals_host, c, 0) / coupling_scale(s);
    return CLMC_OK;
}

/* From the energy pass when the last sweep ran it, else measured;
 * algorithm.tempering_energies "check" measures as well and counts the
 * differences. */
static clmc_status ea_energies(void *state, double *energies)
{
    ea_state *s = state;
    if (!s->pass_energies_ready) return measured_energies(s, energies);
    CLMC_TRY(ea_energy_pass_read(s, energies));
    if (s->energy_mode != EA_ENERGIES_CHECK) return CLMC_OK;
    double *measured = malloc(s->configurations * sizeof *measured);
    if (!measured) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_status status = measured_energies(s, measured);
    for (cl_uint c = 0; status == CLMC_OK && c < s->configurations; c++) s->energy_mismatches += energies[c] != measured[c];
    s->energies_checked += s->configurations;
    free(measured);
    return status;
}

/* Population annealing: every member at the anneal's current beta. */
static clmc_status population_beta(ea_state *s, double beta)
{
    s->temperature_betas[0] = beta;
    fill_acceptance(s);
    cl_command_queue queue = clmc_runtime_queue(s->rt);
    if (s->msc && s->resident_update) return ea_resident_thresholds(s); /* an argument of the launch */
    if (s->msc) { /* one row of thresholds, [k][0]; not waited for: the ensemble waits for it before the next
                   * call rewrites the host row (population_annealing.c, set_beta) */
        CLMC_CL_TRY(clEnqueueWriteBuffer(queue, s->thresholds, CL_FALSE, 0, THRESHOLD_CLASSES * sizeof *s->thresholds_host,
                                         s->thresholds_host, 0, NULL, NULL));
        return CLMC_OK;
    }
    /* naive: row 0 of thresholds and betas, which the update reads for every
     * member (per_config 0); not waited for, as above.  Before, every
     * member's row was filled and written with the device waiting: 29 ms a
     * step at R = 1e6 (3D L = 8 on an H200, 46 % of the run). */
    CLMC_CL_TRY(clEnqueueWriteBuffer(queue, s->thresholds, CL_FALSE, 0, THRESHOLD_CLASSES * sizeof *s->thresholds_host,
                                     s->thresholds_host, 0, NULL, NULL));
    CLMC_CL_TRY(clEnqueueWriteBuffer(queue, s->betas, CL_FALSE, 0, sizeof *s->betas_host, s->betas_host, 0, NULL, NULL));
    return CLMC_OK;
}

/* The writes do not block: the in-order queue applies them before the next
 * sweep or measurement, and the host arrays are only rewritten by the next
 * call, after the energies of a later exchange were read (a blocking read
 * that completes the writes).  Without tempering the engine hands one beta,
 * which the model took at creation. */
static clmc_status ea_set_betas(void *state, const double *betas, const unsigned *temperature_of)
{
    ea_state *s = state;
    (void)betas; /* those of the ensemble, temperature_betas[temperature_of[c]] */
    if (s->population) return population_beta(s, betas[0]);
    if (s->temperatures == 1) return CLMC_OK;
    memcpy(s->temperature_of, temperature_of, s->configurations * sizeof *s->temperature_of);
    if (!s->msc) fill_acceptance(s);
    map_temperatures(s);
    cl_command_queue queue = clmc_runtime_queue(s->rt);
    size_t n = s->configurations;
    if (s->msc) {
        CLMC_CL_TRY(clEnqueueWriteBuffer(queue, s->lane_masks, CL_FALSE, 0, lane_masks_bytes(s), s->lanes_below_host,
                                         0, NULL, NULL));
        return CLMC_OK;
    }
    CLMC_CL_TRY(clEnqueueWriteBuffer(queue, s->thresholds, CL_FALSE, 0, n * THRESHOLD_CLASSES * sizeof *s->thresholds_host,
                                     s->thresholds_host, 0, NULL, NULL));
    CLMC_CL_TRY(clEnqueueWriteBuffer(queue, s->betas, CL_FALSE, 0, n * sizeof *s->betas_host, s->betas_host, 0, NULL,
                                     NULL));
    CLMC_CL_TRY(clEnqueueWriteBuffer(queue, s->partners, CL_FALSE, 0, n * sizeof *s->partners_host, s->partners_host,
                                     0, NULL, NULL));
    return CLMC_OK;
}

/* Population annealing (the only caller: s->population is set): its beta
 * without the per-configuration arrays of set_betas. */
static clmc_status ea_set_beta_all(void *state, double beta) { return population_beta(state, beta); }

/* The msc resident update takes the thresholds as an argument
 * (clmc_ensemble_hooks.beta_in_arguments). */
static bool ea_beta_in_arguments(void *state)
{
    const ea_state *s = state;
    return s->msc && s->resident_update;
}

/* ---- Checks ---------------------------------------------------------------- */

/* All configurations' spins as +-1 bytes, config major: the naive layout's
 * buffer as stored; msc words unpacked (configuration c's spins are one bit
 * of one stack's words, site after site). */
static clmc_status read_spins(ea_state *s, signed char *spins)
{
    cl_command_queue queue = clmc_runtime_queue(s->rt);
    if (!s->msc) {
        CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->spins, CL_TRUE, 0, (size_t)s->configurations * s->n_sites, spins, 0,
                                        NULL, NULL));
        return CLMC_OK;
    }
    void *words = malloc(spin_bytes(s));
    if (!words) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    cl_int err = clEnqueueReadBuffer(queue, s->spins, CL_TRUE, 0, spin_bytes(s), words, 0, NULL, NULL);
    for (size_t config = 0; err == CL_SUCCESS && config < s->configurations; config++) {
        size_t chain = config / s->temperatures, realization = chain / 2, place = config % s->temperatures;
        size_t stack = (2 * (realization / s->word_bits) + chain % 2) * s->temperatures + place;
        unsigned bit = (unsigned)(realization % s->word_bits);
        const cl_ulong *wide = (const cl_ulong *)words + stack * s->n_sites;
        const cl_uint *narrow = (const cl_uint *)words + stack * s->n_sites;
        for (size_t site = 0; site < s->n_sites; site++) {
            uint64_t word = s->word_bits == 64 ? wide[site] : narrow[site];
            spins[config * s->n_sites + site] = (word >> bit) & 1u ? 1 : -1;
        }
    }
    free(words);
    CLMC_CL_CHECK(err, "clEnqueueReadBuffer(spins)");
    return CLMC_OK;
}

/* result.h5: every configuration as +-1 bytes, [config][z][y][x] (config =
 * (2 realization + replica) T + tempering slot). */
static clmc_status ea_snapshot(void *state, clmc_array *configuration)
{
    ea_state *s = state;
    *configuration = clmc_lattice_array("spins", CLMC_ARRAY_INT8, s->configurations, s->dim, s->edge, 1);
    if (!configuration->data) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    return read_spins(s, configuration->data);
}

/* FNV-1a over all configurations lets naive and msc runs, and devices, be
 * compared bit for bit; every spin must be +-1. */
static clmc_status ea_checks(void *state, cJSON *checks)
{
    ea_state *s = state;
    clmc_configuration_hash hash;
    /* Population annealing under ranks: the members of all ranks, in order. */
    clmc_configuration_hash_start(&hash, s->ranks_chained);
    size_t n = (size_t)s->configurations * s->n_sites;
    signed char *spins = malloc(n ? n : 1);
    if (!spins) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_status status = read_spins(s, spins);
    clmc_configuration_hash_receive(&hash);
    for (size_t i = 0; status == CLMC_OK && i < n; i++) {
        hash.invalid += spins[i] != 1 && spins[i] != -1;
        clmc_configuration_hash_byte(&hash, (unsigned char)spins[i]);
    }
    free(spins);
    clmc_configuration_hash_finish(&hash, status == CLMC_OK ? checks : NULL);
    CLMC_TRY(status);
    if (s->energy_mode == EA_ENERGIES_CHECK) {
        cJSON_AddNumberToObject(checks, "energy_pass_checked", (double)s->energies_checked);
        cJSON_AddNumberToObject(checks, "energy_pass_mismatches", (double)s->energy_mismatches);
    }
    return hash.invalid ? clmc_fail(CLMC_ERR_OTHER, "%lld spins are not +-1", hash.invalid) : CLMC_OK;
}

/* MPI ranks share msc realizations in whole words. */
static unsigned ea_independent_block(const clmc_preset *p)
{
    return strcmp(clmc_preset_string(p, "algorithm.layout"), "msc") == 0
               ? (unsigned)clmc_preset_int(p, "algorithm.word_bits") : 1u;
}

/* ---- Population annealing (docs/ensembles.md) ------------------------------ */

/* tempering_energies "check": the member pass's values (in the member
 * buffers), then the measurement's, counting members whose energy or
 * overlap differ. */
static clmc_status check_member_pass(ea_state *s)
{
    cl_command_queue queue = clmc_runtime_queue(s->rt);
    size_t n = s->realizations, bytes = n * sizeof(cl_int);
    cl_int *v = s->member_check_host;
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->member_energy, CL_TRUE, 0, bytes, v, 0, NULL, NULL));
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->member_overlap, CL_TRUE, 0, bytes, v + n, 0, NULL, NULL));
    CLMC_TRY(measure_into(s, s->measure_batch, true));
    size_t items = s->realizations;
    CLMC_TRY(clmc_enqueue(s->rt, s->member_totals, 1, &items, NULL, CLMC_UNTIMED));
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->member_energy, CL_TRUE, 0, bytes, v + 2 * n, 0, NULL, NULL));
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->member_overlap, CL_TRUE, 0, bytes, v + 3 * n, 0, NULL, NULL));
    for (size_t m = 0; m < n; m++) s->energy_mismatches += v[m] != v[2 * n + m] || v[n + m] != v[3 * n + m];
    s->energies_checked += n;
    return CLMC_OK;
}

/* Every member's H (both replicas) and overlap Q = sum_i s_i s'_i of its
 * replicas as cl_int: measured by the member pass of the last sweep
 * (ea_sweeps), else from the spare measurement slot (ea_member_totals). */
static clmc_status ea_member_observables(void *state, cl_mem *energy, cl_mem *overlap)
{
    ea_state *s = state;
    if (!s->member_energy) {
        CLMC_TRY(create_buffer(s, sizeof(cl_int) * s->realizations, NULL, &s->member_energy, "member energies"));
        CLMC_TRY(create_buffer(s, sizeof(cl_int) * s->realizations, NULL, &s->member_overlap, "member overlaps"));
    }
    if (!s->member_totals) {
        CLMC_TRY(clmc_kernel_create(s->program, "ea_member_totals", &s->member_totals));
        cl_uint slot = s->measure_batch;
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 0, sizeof(cl_mem), &s->totals));
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 1, sizeof(cl_uint), &slot));
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 2, sizeof(cl_mem), &s->member_energy));
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 3, sizeof(cl_mem), &s->member_overlap));
    }
    bool measured = s->members_measured;
    s->members_measured = false;
    *energy = s->member_energy;
    *overlap = s->member_overlap;
    if (measured) return s->energy_mode == EA_ENERGIES_CHECK ? check_member_pass(s) : CLMC_OK;
    CLMC_TRY(measure_into(s, s->measure_batch, true));
    size_t items = s->realizations;
    CLMC_TRY(clmc_enqueue(s->rt, s->member_totals, 1, &items, NULL, CLMC_UNTIMED));
    *energy = s->member_energy;
    *overlap = s->member_overlap;
    return CLMC_OK;
}

/* The random start drawn for independent run `run` (the init counter's hit word). */
static clmc_status ea_fresh_start(void *state, unsigned run)
{
    ea_state *s = state;
    s->members_measured = false;
    cl_uint run_arg = run;
    CLMC_CL_TRY(clSetKernelArg(s->init, 4, sizeof(cl_uint), &run_arg));
    return initialise_spins(s);
}

/* A member is both replicas: configurations 2 r and 2 r + 1, one byte per
 * spin (L even, so whole words); msc: the words of stacks 2 w and 2 w + 1
 * hold the members of word w, one per lane (ea_member_lanes). */
static clmc_status ea_members_buffer(void *state, cl_mem *buffer, size_t *bytes_per_member)
{
    ea_state *s = state;
    *buffer = s->spins;
    *bytes_per_member = 2 * (size_t)s->n_sites * (s->msc ? ea_word_bytes(s) : 1);
    return CLMC_OK;
}

static unsigned ea_member_lanes(void *state)
{
    const ea_state *s = state;
    return s->msc ? s->word_bits : 0;
}

/* The resampled population in *other becomes the spins, the old spins the
 * ensemble's next scratch buffer (every kernel takes the spins as its first
 * argument); declined (copied back) in the naive layout without its
 * resident update. */
static clmc_status ea_swap_members(void *state, cl_mem *other)
{
    ea_state *s = state;
    if (!s->msc && !s->resident_update) return CLMC_OK;
    cl_mem old = s->spins;
    s->spins = *other;
    *other = old;
    cl_kernel kernels[] = {s->init, s->update, s->measure, s->member_update, s->resident_update};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i]) CLMC_CL_TRY(clSetKernelArg(kernels[i], 0, sizeof(cl_mem), &s->spins));
    return CLMC_OK;
}

/* Population annealing's gather in the next sweeps
 * (clmc_ensemble_hooks.gather_in_sweeps): taken where they are the resident
 * update, whose launch loads each word's members. */
static clmc_status ea_gather_in_sweeps(void *state, cl_mem *buffer, cl_mem source, cl_uint n_new)
{
    ea_state *s = state;
    cl_mem old = s->spins;
    if (!s->resident_update) return CLMC_OK;
    CLMC_TRY(ea_swap_members(state, buffer));
    return *buffer == old ? ea_resident_gather(s, old, source, n_new) : CLMC_OK;
}

/* Population annealing's chunk ranges folded by the msc resident update
 * (clmc_ensemble_hooks.fold_energy_range): where it runs. */
static clmc_status ea_fold_energy_range(void *state, cl_mem chunk_range, bool *folds)
{
    ea_state *s = state;
    *folds = s->msc && s->resident_update;
    return *folds ? ea_resident_fold(s, chunk_range) : CLMC_OK;
}

static void ea_member_size(void *state, double *sites, double *log_states)
{
    const ea_state *s = state;
    *sites = 2.0 * s->n_sites;
    *log_states = 2.0 * s->n_sites * log(2.0);
}

/* The overlap q = Q / N of a member's replicas: <|q|>, <q^2>, <q^4> and
 * binder_q = (3 - <q^4> / <q^2>^2) / 2, as the model reports them. */
static void ea_member_order(void *state, clmc_member_order *out)
{
    const ea_state *s = state;
    *out = (clmc_member_order){"abs_overlap", "q2", "q4", NULL, "binder_q", (double)s->n_sites, 1.5};
}

/* Device bytes of the naive layout (spins, couplings, thresholds, betas,
 * partners, one measurement slot's partials and totals; population
 * annealing's member values); msc counts its spins and couplings only (and
 * population annealing's measurement of every member). */
static void ea_device_bytes(const clmc_preset *p, uint64_t *total, uint64_t *largest)
{
    int dim = (int)clmc_preset_int(p, "model.dim");
    uint64_t sites = clmc_lattice_sites(dim, (int)clmc_preset_int(p, "model.L"));
    bool population = clmc_preset_is_population(p), msc = strcmp(clmc_preset_string(p, "algorithm.layout"), "msc") == 0;
    uint64_t realizations = population ? clmc_preset_systems(p)->copies
                                       : (uint64_t)clmc_preset_int(p, "model.realizations");
    uint64_t disorders = population ? 1 : realizations;
    uint64_t configs = 2 * realizations * clmc_preset_betas(p, NULL, 0);
    bool gaussian = strcmp(clmc_preset_string(p, "model.couplings"), "gaussian") == 0;
    uint64_t spins = msc ? configs * sites / 8 : configs * sites;
    uint64_t word_bytes = (uint64_t)clmc_preset_int(p, "algorithm.word_bits") / 8;
    uint64_t couplings = msc ? (population ? word_bytes : realizations / 8) * sites * dim
                             : disorders * sites * dim * (gaussian ? 4 : 1);
    *total = spins + couplings;
    if (!msc) *total += configs * (THRESHOLD_CLASSES * 4 + 4 + 4 + 2 * 3 * sizeof(cl_long));
    else if (population) *total += configs * 2 * 3 * sizeof(cl_long); /* every member's partials and totals */
    if (population) *total += 2 * sizeof(cl_int) * realizations;
    *largest = spins > couplings ? spins : couplings;
}

/* Multicanonical and Wang-Landau walkers (cl/ea/muca_ea.cl), one density of
 * states per disorder realization (units), the couplings those of the
 * naive buffer (the same realizations as every other ea_ising run with
 * this seed).  Energies -dim N ... dim N in steps of 2 (every bond +-1):
 * one bin table for all realizations; in one realization only every other
 * bin is reachable (H = -sum J mod 4, single flips change H by multiples
 * of 4) and its ground-state energy is unknown (edges_unknown). */
static clmc_status ea_density_walkers(void *state, clmc_density_walkers *out)
{
    ea_state *s = state;
    snprintf(s->muca_defines, sizeof s->muca_defines, "-cl-std=CL1.2 -DDIM=%d -DEDGE=%d", s->dim, s->edge);
    int bonds = s->dim * (int)s->n_sites;
    *out = (clmc_density_walkers){.program = "ea/muca_ea.cl",
                                  .defines = s->muca_defines,
                                  .e_min = -bonds,
                                  .e_step = 2,
                                  .n_bins = (unsigned)bonds + 1,
                                  .max_bin_step = 2 * (unsigned)s->dim, /* dE / 2 = s h, |h| <= 2 dim */
                                  .sites = s->n_sites,
                                  .log_states = s->n_sites * log(2.0),
                                  .walker_bytes = s->n_sites,
                                  .units = s->realizations,
                                  .data = s->bonds,
                                  .edges_unknown = true};
    return CLMC_OK;
}

static const clmc_ensemble_hooks ea_ensemble_hooks = {
    .independent = true,
    .independent_units = "model.realizations",
    .units_temper_alone = true,
    .independent_block = ea_independent_block,
    .energies = ea_energies,
    .set_betas = ea_set_betas,
    .set_beta_all = ea_set_beta_all,
    .sweep_before_energies = ea_sweep_before_energies,
    .energies_device = ea_energies_device,
    .set_temperatures_device = ea_set_temperatures_device,
    .exchange_kernel = ea_exchange_kernel,
    .member_observables = ea_member_observables,
    .members_buffer = ea_members_buffer,
    .member_lanes = ea_member_lanes,
    .swap_members = ea_swap_members,
    .gather_in_sweeps = ea_gather_in_sweeps,
    .fold_energy_range = ea_fold_energy_range,
    .beta_in_arguments = ea_beta_in_arguments,
    .member_size = ea_member_size,
    .fresh_start = ea_fresh_start,
    .member_order = ea_member_order,
    .density_walkers = ea_density_walkers,
};

const clmc_model_ops clmc_model_ea_ising = {
    .type = "ea_ising",
    .model_fields = clmc_ea_ising_model_fields,
    .algorithm_fields = clmc_ea_ising_algorithm_fields,
    .validate = ea_validate,
    .create = ea_create,
    .destroy = ea_destroy,
    .sweep = ea_sweep,
    .sweeps = ea_sweeps,
    .describe_update = ea_describe_update,
    .measure = ea_measure,
    .collect = ea_collect,
    .estimate = ea_estimate,
    .ensemble = &ea_ensemble_hooks,
    .checks = ea_checks,
    .snapshot = ea_snapshot,
    .save_state = ea_save_state,
    .load_state = ea_load_state,
    .tunables = clmc_ea_ising_tunables,
    .device_bytes = ea_device_bytes,
};

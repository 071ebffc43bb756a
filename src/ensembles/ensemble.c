/* The ensemble layer's entry points: the preset's ensemble section read once,
 * the kind chosen by ensemble.type, and the one-temperature kind. */
#include "ensemble.h"

#include <string.h>


static clmc_status population_settings_read(const clmc_preset *preset, clmc_ensemble_settings *settings)
{
    static const char *const schemes[] = {"systematic", "multinomial", "nearest_integer"};
    settings->type = CLMC_ENSEMBLE_POPULATION_ANNEALING;
    settings->n_betas = (unsigned)clmc_preset_population_schedule(preset, settings->betas, CLMC_ENSEMBLE_MAX_TEMPERATURES);
    settings->copies = clmc_preset_systems(preset)->copies;
    settings->first_system = clmc_preset_systems(preset)->first_system; /* MPI ranks: this rank's first member */
    settings->population = (unsigned)clmc_preset_int(preset, "ensemble.population");
    settings->sweeps_per_step = (uint64_t)clmc_preset_int(preset, "ensemble.sweeps_per_step");
    settings->runs = (unsigned)clmc_preset_int(preset, "ensemble.runs");
    settings->runs_over_ranks = clmc_preset_population_runs(preset);
    const char *scheme = clmc_preset_string(preset, "ensemble.resampling");
    for (unsigned i = 0; i < 3; i++)
        if (strcmp(scheme, schemes[i]) == 0) settings->resampling = i;
    settings->seed = clmc_preset_run(preset)->seed;
    settings->adaptive = clmc_preset_population_adaptive(preset, &settings->beta_end, &settings->target_overlap);
    settings->fused_steps = strcmp(clmc_preset_string(preset, "ensemble.fused_steps"), "off") != 0;
    return CLMC_OK;
}

/* The units the preset's model tempers alone (clmc_ensemble_hooks.units_temper_alone:
 * the value of its independent_units key), or 0. */
static unsigned tempering_units(const clmc_preset *preset)
{
    const clmc_model_ops *ops =
        clmc_preset_has(preset, "model.type") ? clmc_model_find(clmc_preset_string(preset, "model.type")) : NULL;
    const clmc_ensemble_hooks *hooks = ops ? ops->ensemble : NULL;
    if (!hooks || !hooks->units_temper_alone || !hooks->independent_units ||
        !clmc_preset_has(preset, hooks->independent_units))
        return 0;
    return (unsigned)clmc_preset_int(preset, hooks->independent_units);
}

clmc_status clmc_ensemble_settings_read(const clmc_preset *preset, clmc_ensemble_settings *settings)
{
    memset(settings, 0, sizeof *settings);
    if (clmc_preset_is_population(preset)) return population_settings_read(preset, settings);
    bool has_type = clmc_preset_has(preset, "ensemble.type");
    settings->type = clmc_preset_systems(preset)->independent ? CLMC_ENSEMBLE_INDEPENDENT
                     : has_type && (strcmp(clmc_preset_string(preset, "ensemble.type"), "multicanonical") == 0 ||
                                    strcmp(clmc_preset_string(preset, "ensemble.type"), "wang_landau") == 0)
                         ? CLMC_ENSEMBLE_MULTICANONICAL
                     : has_type ? CLMC_ENSEMBLE_PARALLEL_TEMPERING
                                : CLMC_ENSEMBLE_ONE_TEMPERATURE;
    settings->copies = clmc_preset_systems(preset)->copies;
    settings->first_system = clmc_preset_systems(preset)->first_system;
    settings->units = tempering_units(preset);
    size_t n = clmc_preset_betas(preset, settings->betas, CLMC_ENSEMBLE_MAX_TEMPERATURES);
    if (n > CLMC_ENSEMBLE_MAX_TEMPERATURES)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.betas: at most %d temperatures", CLMC_ENSEMBLE_MAX_TEMPERATURES);
    settings->n_betas = (unsigned)n;
    settings->exchange_every = clmc_preset_has(preset, "ensemble.exchange_every")
                                   ? (uint64_t)clmc_preset_int(preset, "ensemble.exchange_every") : 0;
    const char *path = clmc_preset_has(preset, "ensemble.exchanges") ? clmc_preset_string(preset, "ensemble.exchanges")
                                                                     : "auto";
    settings->exchanges = strcmp(path, "host") == 0      ? CLMC_EXCHANGES_HOST
                          : strcmp(path, "general") == 0 ? CLMC_EXCHANGES_GENERAL
                                                         : CLMC_EXCHANGES_AUTO;
    settings->seed = clmc_preset_run(preset)->seed;
    if (settings->type == CLMC_ENSEMBLE_MULTICANONICAL) {
        clmc_density_settings *d = &settings->density;
        d->wang_landau = strcmp(clmc_preset_string(preset, "ensemble.type"), "wang_landau") == 0;
        d->walkers = (unsigned)clmc_preset_int(preset, "ensemble.walkers");
        d->flatness = clmc_preset_number(preset, "ensemble.flatness");
        d->iteration_sweeps = (uint64_t)clmc_preset_int(preset, "ensemble.iteration_sweeps");
        d->max_iterations = clmc_preset_int(preset, "ensemble.max_iterations");
        d->final_ln_f = d->wang_landau ? clmc_preset_number(preset, "ensemble.final_ln_f") : 0;
        d->production = d->wang_landau ? clmc_preset_bool(preset, "ensemble.production") : true;
        d->windows = d->wang_landau ? (unsigned)clmc_preset_int(preset, "ensemble.windows") : 1;
        d->walkers_per_window = d->wang_landau ? (unsigned)clmc_preset_int(preset, "ensemble.walkers_per_window") : 0;
        d->overlap = d->wang_landau ? clmc_preset_number(preset, "ensemble.overlap") : 0;
        const cJSON *ranges = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(clmc_preset_tree(preset), "ensemble"), "window_energies");
        d->n_window_values = 0;
        const cJSON *value;
        cJSON_ArrayForEach(value, ranges) {
            if (d->n_window_values == 2 * CLMC_DENSITY_MAX_WINDOWS + 1) break;
            d->window_energies[d->n_window_values++] = value->valuedouble;
        }
    }
    return CLMC_OK;
}

clmc_status clmc_ensemble_create(clmc_ensemble *e, const clmc_ensemble_settings *settings, clmc_runtime *rt,
                                 const clmc_model_ops *ops, void *state, const clmc_model_shape *shape)
{
    memset(e, 0, sizeof *e);
    e->kind = settings->type == CLMC_ENSEMBLE_PARALLEL_TEMPERING   ? &clmc_ensemble_parallel_tempering
              : settings->type == CLMC_ENSEMBLE_INDEPENDENT          ? &clmc_ensemble_independent_systems
              : settings->type == CLMC_ENSEMBLE_MULTICANONICAL       ? &clmc_ensemble_multicanonical
              : settings->type == CLMC_ENSEMBLE_POPULATION_ANNEALING ? &clmc_ensemble_population_annealing
                                                                      : &clmc_ensemble_one_temperature;
    if (settings->type == CLMC_ENSEMBLE_MULTICANONICAL && (!ops->ensemble || !ops->ensemble->density_walkers))
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.type: model \"%s\" has no multicanonical walkers (docs/ensembles.md)",
                         ops->type);
    bool population = settings->type == CLMC_ENSEMBLE_POPULATION_ANNEALING;
    if (population && (!ops->ensemble || !ops->ensemble->member_observables || !ops->ensemble->members_buffer ||
                       !ops->ensemble->member_size))
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.type: model \"%s\" does not support population annealing", ops->type);
    if (population && (settings->runs > 1 || settings->runs_over_ranks) && !ops->ensemble->fresh_start)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.runs: model \"%s\" cannot start independent runs", ops->type);
    if (settings->type == CLMC_ENSEMBLE_INDEPENDENT && (!ops->ensemble || !ops->ensemble->independent))
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.type: model \"%s\" does not hold independent systems", ops->type);
    e->ops = ops;
    e->state = state;
    e->density = settings->density;
    e->rt = rt;
    CLMC_TRY(clmc_tempering_init(&e->map, settings->betas, population ? 1 : settings->n_betas, settings->exchange_every,
                                 settings->seed, shape, settings->share_first, settings->share_count));
    /* Across ranks the exchanges run on the host, from the gathered energies
     * (the same decisions as on the device, src/ensembles/tempering_device.c). */
    e->map.exchange_path = settings->share_count ? CLMC_EXCHANGES_HOST : settings->exchanges;
    e->map.independent = settings->type == CLMC_ENSEMBLE_INDEPENDENT;
    e->map.first_system = settings->first_system;
    /* first_system counts units where the model tempers them alone, each of
     * n_systems / units tempering systems (the spin glasses' two replicas). */
    unsigned per_unit = settings->units && shape->n_systems % settings->units == 0
                            ? shape->n_systems / settings->units : 1;
    e->map.exchange_first = settings->first_system * per_unit;
    e->map.athermal = ops->athermal;
    e->map.configs_per_system = shape->configs_per_system > 1 ? shape->configs_per_system : 1;
    CLMC_TRY(clmc_tempering_apply(&e->map, ops, state));
    if (population) return clmc_population_open(e, settings);
    return e->kind->open ? e->kind->open(e, shape->measure_batch) : CLMC_OK;
}

void clmc_ensemble_free(clmc_ensemble *e)
{
    if (e->kind && e->kind->close) e->kind->close(e);
    clmc_tempering_free(&e->map);
    memset(e, 0, sizeof *e);
}

clmc_status clmc_ensemble_start(clmc_ensemble *e)
{
    return e->kind->start ? e->kind->start(e) : CLMC_OK;
}

clmc_status clmc_ensemble_sweep(clmc_ensemble *e, uint64_t sweep_index)
{
    return e->kind->sweep ? e->kind->sweep(e, sweep_index) : e->ops->sweep(e->state, sweep_index);
}

/* A kind with its own sweep takes the block's last sweep itself where that
 * differs from the model's (tempering: a model counting the energies on the
 * way to an exchange, sweep_before_energies). */
clmc_status clmc_ensemble_sweeps(clmc_ensemble *e, uint64_t first, uint64_t count, int measure_slot, bool *measured)
{
    const clmc_ensemble_hooks *hooks = e->ops->ensemble;
    uint64_t own = e->kind->sweep && hooks && hooks->sweep_before_energies ? 1 : 0;
    *measured = false;
    if (e->ops->sweeps && count > own)
        CLMC_TRY(e->ops->sweeps(e->state, first, count - own, own ? -1 : measure_slot, measured));
    else own = count;
    for (uint64_t t = first + count - own; t < first + count; t++) CLMC_TRY(clmc_ensemble_sweep(e, t));
    return CLMC_OK;
}

clmc_status clmc_ensemble_after_sweep(clmc_ensemble *e, uint64_t sweep_index)
{
    return e->kind->after_sweep ? e->kind->after_sweep(e, sweep_index) : CLMC_OK;
}

clmc_status clmc_ensemble_note(clmc_ensemble *e, unsigned slot)
{
    return e->kind->note ? e->kind->note(e, slot) : CLMC_OK;
}

clmc_status clmc_ensemble_collect(clmc_ensemble *e, unsigned n_slots, unsigned *map_of_slot)
{
    return e->kind->collect ? e->kind->collect(e, n_slots, map_of_slot) : CLMC_OK;
}

clmc_status clmc_ensemble_sync(clmc_ensemble *e)
{
    return e->kind->sync ? e->kind->sync(e) : CLMC_OK;
}

clmc_status clmc_ensemble_run(clmc_ensemble *e, bool *ran)
{
    *ran = e->kind->run != NULL;
    return *ran ? e->kind->run(e) : CLMC_OK;
}

clmc_status clmc_ensemble_results(clmc_ensemble *e, cJSON *observables, bool *written)
{
    *written = e->kind->results != NULL;
    return *written ? e->kind->results(e, observables) : CLMC_OK;
}

void clmc_ensemble_describe(clmc_ensemble *e, cJSON *performance)
{
    if (e->kind && e->kind->describe) e->kind->describe(e, performance);
}

clmc_status clmc_ensemble_save(clmc_ensemble *e, unsigned char **blob, size_t *bytes)
{
    *blob = NULL;
    *bytes = 0;
    return e->kind->save ? e->kind->save(e, blob, bytes) : CLMC_OK;
}

clmc_status clmc_ensemble_restore(clmc_ensemble *e, const unsigned char *blob, size_t bytes)
{
    if (!e->kind->restore)
        return clmc_fail(CLMC_ERR_INPUT, "checkpoint: holds an ensemble section, which this ensemble does not take");
    return e->kind->restore(e, blob, bytes);
}

/* One temperature: the model sweeps at the beta it was given; nothing else happens. */
const clmc_ensemble_kind clmc_ensemble_one_temperature = {0};

/* Independent systems: the model sweeps all its configurations, each at the
 * beta set once at the start; nothing is exchanged, so the map stays the
 * identity and only the results' layout (series.c) differs. */
const clmc_ensemble_kind clmc_ensemble_independent_systems = {0};

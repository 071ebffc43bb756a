/* Presets: strict, schema-driven parsing of JSON run descriptions (docs/interface.md). */
#ifndef CLMC_PRESET_H
#define CLMC_PRESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clmc/status.h"

typedef enum {
    CLMC_FIELD_INT,
    CLMC_FIELD_NUMBER,
    CLMC_FIELD_STRING,
    CLMC_FIELD_BOOL,
    CLMC_FIELD_NUMBER_LIST
} clmc_field_kind;

/* One key of a preset section.  Tables end with an entry whose name is NULL. */
typedef struct clmc_field {
    const char *name;
    clmc_field_kind kind;
    double min, max;             /* inclusive range (ints, numbers, list items) */
    bool min_open;               /* true: the lower bound itself is excluded */
    const char *const *choices;  /* strings: NULL-terminated allowed values */
    const char *default_json;    /* JSON text of the default; NULL = required */
    const char *help;            /* one line: what it means, for docs/errors */
} clmc_field;

typedef struct clmc_preset clmc_preset;

/* The "run" section, resolved (run.checkpoint_every read into its unit). */
typedef struct clmc_run_settings {
    uint64_t thermalization, sweeps, measure_every;
    uint64_t seed;
    uint64_t checkpoint_every_sweeps;  /* 0: not by sweeps */
    double checkpoint_every_seconds;   /* 0: not by time */
} clmc_run_settings;

/* The "output" section, resolved (dir "out/<name>" unless given). */
typedef struct clmc_output_settings {
    const char *dir;
    bool picture;
    bool hdf5; /* output.format "hdf5": result.h5 instead of series.csv (docs/results.md) */
} clmc_output_settings;

/* The systems a model holds, from the ensemble section, resolved: with
 * ensemble.type "independent", `copies` systems per temperature whose random
 * streams are numbered from `first_system` (docs/ensembles.md); else one
 * system per temperature, numbered from 0. */
typedef struct clmc_systems_settings {
    bool independent;
    unsigned copies, first_system;
    /* Under MPI ranks, set by the engine: these systems are this rank's share
     * of one run's configurations, continuing those of the rank below (the
     * temperatures of one parallel tempering run, population annealing's
     * members); the configuration hash continues from rank to rank. */
    bool ranks_chained;
} clmc_systems_settings;

/* Parses and validates against the models of the registry (defined above the
 * models, src/engine/schema.c); `overrides` are "PATH=VALUE" strings applied before
 * validation (VALUE is JSON if it parses as JSON, else a string).  On failure
 * returns CLMC_ERR_INPUT with a message naming file:line:column (syntax) or the
 * JSON path (schema). */
clmc_status clmc_preset_load(const char *path, const char *const *overrides,
                             size_t n_overrides, clmc_preset **out);
clmc_status clmc_preset_parse(const char *text, size_t length, const char *source_name,
                              const char *const *overrides, size_t n_overrides,
                              clmc_preset **out);
void clmc_preset_free(clmc_preset *preset);

/* Resolved preset (defaults filled) as indented JSON; caller frees with free(). */
char *clmc_preset_to_json(const clmc_preset *preset);
/* The resolved tree itself (a cJSON *), for embedding into results. */
const void *clmc_preset_tree(const clmc_preset *preset);

/* The resolved name, run and output sections and the systems as typed settings, owned by the
 * preset; code below the engine reads these, not JSON paths. */
const char *clmc_preset_name(const clmc_preset *preset);
const clmc_run_settings *clmc_preset_run(const clmc_preset *preset);
const clmc_output_settings *clmc_preset_output(const clmc_preset *preset);
const clmc_systems_settings *clmc_preset_systems(const clmc_preset *preset);
/* Syntax check of a run.checkpoint_every string ("N" sweeps or
 * "Ns"/"Nm"/"Nh"): NULL if valid (the count in *sweeps or *seconds), else why. */
const char *clmc_checkpoint_every_problem(const char *text, uint64_t *sweeps, double *seconds);

/* Typed access by dotted path ("model.L").  Paths must exist in the resolved
 * preset (the schema guarantees the ones it declares). */
long long clmc_preset_int(const clmc_preset *preset, const char *path);
double clmc_preset_number(const clmc_preset *preset, const char *path);
const char *clmc_preset_string(const clmc_preset *preset, const char *path);
bool clmc_preset_bool(const clmc_preset *preset, const char *path);
bool clmc_preset_has(const clmc_preset *preset, const char *path);
/* The ensemble's inverse temperatures: ensemble.beta, or the tempering list
 * ensemble.betas (increasing).  Writes at most `capacity`; returns the count. */
size_t clmc_preset_betas(const clmc_preset *preset, double *betas, size_t capacity);
/* ensemble.type "population_annealing" (docs/ensembles.md): whether the
 * preset has it, and its schedule beta_start, ..., beta_end (at most
 * `capacity` written; returns steps + 1).  The model sees one temperature,
 * beta_start, and clmc_preset_systems(preset)->copies systems. */
bool clmc_preset_is_population(const clmc_preset *preset);
/* Population annealing with ensemble.distribute "runs": under K MPI ranks
 * each rank anneals its own ensemble.runs / K runs (docs/mpi.md) instead of
 * a share of every run's members. */
bool clmc_preset_population_runs(const clmc_preset *preset);
/* ensemble.type "multicanonical" or "wang_landau": walkers, not the model's systems. */
bool clmc_preset_is_density(const clmc_preset *preset);
size_t clmc_preset_population_schedule(const clmc_preset *preset, double *betas, size_t capacity);
/* ensemble.schedule "adaptive": true with beta_end and target_overlap (the
 * schedule above is then beta_start alone, counted as max_steps + 1). */
bool clmc_preset_population_adaptive(const clmc_preset *preset, double *beta_end, double *target_overlap);
/* Population annealing under MPI ranks (src/engine/distribute.c): this
 * rank's model holds `copies` member slots, the first of them the run's
 * member `first_system` (clmc_preset_systems). */
void clmc_preset_population_share(clmc_preset *preset, unsigned copies, unsigned first_system);
/* Marks the systems as a rank's share of one run's configurations (clmc_systems_settings.ranks_chained). */
void clmc_preset_chain_ranks(clmc_preset *preset);
/* Engine-side resolution of automatic values (e.g. a per-device tile edge). */
void clmc_preset_set_int(clmc_preset *preset, const char *path, long long value);

#endif

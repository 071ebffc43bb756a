/* A run spread over MPI ranks (src/engine/distribute.h, docs/mpi.md). */
#include "engine/distribute.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ensembles/ensemble.h"
#include "models/model.h"
#include "output/results.h"
#include "runtime/ranks.h"

/* "output.dir=DIR" with DIR as a JSON string (any characters). */
static clmc_status dir_override(const char *dir, char *out, size_t size)
{
    cJSON *quoted = cJSON_CreateString(dir);
    char *text = quoted ? cJSON_PrintUnformatted(quoted) : NULL;
    cJSON_Delete(quoted);
    if (!text) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    bool fits = snprintf(out, size, "output.dir=%s", text) < (int)size;
    free(text);
    return fits ? CLMC_OK : clmc_fail(CLMC_ERR_INPUT, "output.dir: path too long");
}

/* This rank's folder, OUT/rank-R, as an output.dir override. */
static clmc_status rank_dir_override(const clmc_preset *global, char *out, size_t size)
{
    char rank_dir[4096];
    snprintf(rank_dir, sizeof rank_dir, "%s/rank-%d", clmc_preset_output(global)->dir, clmc_ranks()->rank);
    return dir_override(rank_dir, out, size);
}

/* The run's preset for this rank: `global` with the n overrides and
 * output.dir OUT/rank-R. */
static clmc_status parse_for_rank(const clmc_preset *global, const char *const *overrides, size_t n,
                                  clmc_preset **local)
{
    const char *all[4];
    char dir[8300];
    if (n + 1 > sizeof all / sizeof all[0]) return clmc_fail(CLMC_ERR_OTHER, "too many rank overrides");
    CLMC_TRY(rank_dir_override(global, dir, sizeof dir));
    for (size_t i = 0; i < n; i++) all[i] = overrides[i];
    all[n] = dir;
    char *json = clmc_preset_to_json(global);
    if (!json) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_status status = clmc_preset_parse(json, strlen(json), "preset", all, n + 1, local);
    free(json);
    return status;
}

/* Rank r's share of n units: [r n / K, (r + 1) n / K). */
static unsigned share_start(unsigned units, int rank, int ranks)
{
    return (unsigned)((unsigned long long)units * (unsigned)rank / (unsigned)ranks);
}

/* What the ranks share (clmc_ensemble_hooks.independent_units): the key,
 * its value, the systems per unit and the units kept together. */
typedef struct {
    const char *key;
    unsigned units, systems_per_unit, block;
} rank_units;

static rank_units units_of(const clmc_preset *global)
{
    const clmc_model_ops *ops = clmc_model_find(clmc_preset_string(global, "model.type"));
    const clmc_ensemble_hooks *hooks = ops ? ops->ensemble : NULL;
    if (!hooks || !hooks->independent_units)
        return (rank_units){"ensemble.copies", clmc_preset_systems(global)->copies,
                            (unsigned)clmc_preset_betas(global, NULL, 0), 1};
    unsigned block = hooks->independent_block ? hooks->independent_block(global) : 1;
    return (rank_units){hooks->independent_units, (unsigned)clmc_preset_int(global, hooks->independent_units), 1,
                        block ? block : 1};
}

/* Parallel tempering of a model whose units each temper alone
 * (clmc_ensemble_hooks.units_temper_alone), so the ranks share the units. */
static bool tempers_units(const clmc_preset *global)
{
    const clmc_model_ops *ops = clmc_model_find(clmc_preset_string(global, "model.type"));
    const clmc_ensemble_hooks *hooks = ops ? ops->ensemble : NULL;
    const char *type = clmc_preset_has(global, "ensemble.type") ? clmc_preset_string(global, "ensemble.type") : "";
    return strcmp(type, "parallel_tempering") == 0 && hooks && hooks->independent_units && hooks->units_temper_alone;
}

/* Runs whose systems the ranks share (the rest cut one lattice). */
static bool spreads_systems(const clmc_preset *global)
{
    return clmc_preset_systems(global)->independent || tempers_units(global);
}

bool clmc_rank_temperatures(const clmc_preset *global)
{
    const char *type = clmc_preset_has(global, "ensemble.type") ? clmc_preset_string(global, "ensemble.type") : "";
    return clmc_ranks_many() && strcmp(type, "parallel_tempering") == 0 && !tempers_units(global);
}

void clmc_rank_temperature_share(const clmc_preset *global, unsigned *first, unsigned *count)
{
    unsigned temperatures = (unsigned)clmc_preset_betas(global, NULL, 0);
    *first = clmc_ranks_share_start(temperatures, clmc_ranks()->rank);
    *count = clmc_ranks_share_start(temperatures, clmc_ranks()->rank + 1) - *first;
}

bool clmc_rank_domain(const clmc_preset *global)
{
    return clmc_ranks_many() && !spreads_systems(global) && !clmc_preset_is_density(global) &&
           !clmc_preset_is_population(global) && !clmc_rank_temperatures(global);
}

/* Parallel tempering of one system: this rank's model holds the
 * configurations of its share of the temperatures, [first, first + count),
 * as that many independent systems of one temperature each from
 * first_system + first on, which draw exactly the random numbers of
 * configurations first ... of the whole run (cl/common/philox.h).  The
 * ensemble (the betas, the map, the exchanges) stays the run's
 * (src/engine/engine.c reads it from the global preset). */
static clmc_status temperatures_preset(const clmc_preset *global, const char *dir, clmc_preset **local)
{
    const clmc_ranks_info *ranks = clmc_ranks();
    double betas[CLMC_RANK_MAX_TEMPERATURES];
    size_t n = clmc_preset_betas(global, betas, CLMC_RANK_MAX_TEMPERATURES);
    if (n < (size_t)ranks->size)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.betas: %zu temperatures cannot be spread over %d MPI ranks (each "
                         "rank holds at least one temperature's configuration of the parallel tempering run)",
                         n, ranks->size);
    if (n > CLMC_RANK_MAX_TEMPERATURES)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.betas: at most %d temperatures under MPI ranks",
                         CLMC_RANK_MAX_TEMPERATURES);
    unsigned first, count;
    clmc_rank_temperature_share(global, &first, &count);
    cJSON *tree = cJSON_Duplicate(clmc_preset_tree(global), true);
    cJSON *ensemble = cJSON_CreateObject(), *share = cJSON_CreateDoubleArray(betas + first, (int)count);
    if (!tree || !ensemble || !share) {
        cJSON_Delete(tree);
        cJSON_Delete(ensemble);
        cJSON_Delete(share);
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    }
    cJSON_AddStringToObject(ensemble, "type", "independent");
    cJSON_AddItemToObject(ensemble, "betas", share);
    cJSON_AddNumberToObject(ensemble, "first_system", (double)(clmc_preset_systems(global)->first_system + first));
    cJSON_ReplaceItemInObject(tree, "ensemble", ensemble);
    char *json = cJSON_PrintUnformatted(tree);
    cJSON_Delete(tree);
    if (!json) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    const char *overrides[] = {dir};
    clmc_status status = clmc_preset_parse(json, strlen(json), "preset", overrides, 1, local);
    free(json);
    return status;
}

/* Domain decomposition: every rank runs the whole preset on its part of the
 * lattice (the model reads its part from clmc_ranks()), in OUT/rank-R.
 * Multicanonical and Wang-Landau runs the same, the ranks sharing the
 * walkers (src/ensembles/density_walkers.h). */
static clmc_status domain_preset(const clmc_preset *global, clmc_preset **local)
{
    const clmc_ranks_info *ranks = clmc_ranks();
    const clmc_model_ops *ops = clmc_model_find(clmc_preset_string(global, "model.type"));
    bool walkers = clmc_preset_is_density(global);
    if (!walkers && (!ops || !ops->domain))
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.type: %d MPI ranks spread the systems of an \"independent\" "
                         "ensemble or cut one lattice into slabs; model \"%s\" has neither for this run (run it "
                         "without mpirun, or with -np 1)", ranks->size, clmc_preset_string(global, "model.type"));
    if (!walkers) CLMC_TRY(ops->domain(global, ranks->size, NULL));
    return parse_for_rank(global, NULL, 0, local);
}

/* Population annealing: every rank runs the whole preset in OUT/rank-R,
 * holding its share of the members (clmc_population_share), the first of
 * them numbered as in one process (their random streams). */
void clmc_rank_population_share(const clmc_preset *global, clmc_preset *local)
{
    if (clmc_preset_population_runs(global)) return; /* every rank all of its runs' members */
    clmc_preset_chain_ranks(local);
    unsigned target = (unsigned)clmc_preset_int(global, "ensemble.population"), first = 0, slots = 0;
    clmc_population_share(target, clmc_preset_systems(global)->copies, clmc_ranks()->rank, clmc_ranks()->size, &first,
                          &slots);
    clmc_preset_population_share(local, slots, first);
}

/* ensemble.distribute "runs": rank r anneals runs [r M, (r + 1) M) of the
 * K M whole, all members each (src/ensembles/population_annealing.c numbers
 * them and their sweeps as one process does). */
static clmc_status population_runs_preset(const clmc_preset *global, clmc_preset **local)
{
    int k = clmc_ranks()->size;
    unsigned runs = (unsigned)clmc_preset_int(global, "ensemble.runs");
    double beta_end, target_overlap;
    if (clmc_preset_population_adaptive(global, &beta_end, &target_overlap))
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.distribute: \"runs\" needs a fixed schedule (ensemble.betas or "
                         "ensemble.steps): with ensemble.schedule \"adaptive\" every run follows the schedule its "
                         "first run chooses, so the runs cannot start apart; use \"members\"");
    if (runs % (unsigned)k != 0)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.runs: %u runs cannot be spread evenly over %d MPI ranks "
                         "(ensemble.distribute \"runs\": each rank anneals the same number of whole runs); give a "
                         "multiple of %d", runs, k, k);
    char share[64];
    snprintf(share, sizeof share, "ensemble.runs=%u", runs / (unsigned)k);
    const char *overrides[] = {share};
    return parse_for_rank(global, overrides, 1, local);
}

static clmc_status population_preset(const clmc_preset *global, clmc_preset **local)
{
    const clmc_ranks_info *ranks = clmc_ranks();
    if (clmc_preset_population_runs(global)) return population_runs_preset(global, local);
    unsigned target = (unsigned)clmc_preset_int(global, "ensemble.population"), first = 0, slots = 0;
    if (!clmc_population_share(target, clmc_preset_systems(global)->copies, ranks->rank, ranks->size, &first, &slots))
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.population: %u members cannot be shared by %d MPI ranks: the ranks "
                         "hold whole chunks of 256 members (the resampling's sums), at least one each, so %d ranks "
                         "need more than %d members", target, ranks->size, ranks->size, 256 * (ranks->size - 1));
    clmc_status status = parse_for_rank(global, NULL, 0, local);
    if (status == CLMC_OK) clmc_rank_population_share(global, *local);
    return status;
}

clmc_status clmc_rank_preset(const clmc_preset *global, clmc_preset **local)
{
    const clmc_ranks_info *ranks = clmc_ranks();
    const clmc_systems_settings *systems = clmc_preset_systems(global);
    if (clmc_preset_is_population(global)) return population_preset(global, local);
    if (clmc_rank_temperatures(global)) {
        char dir[8300];
        CLMC_TRY(rank_dir_override(global, dir, sizeof dir));
        return temperatures_preset(global, dir, local);
    }
    if (!spreads_systems(global)) return domain_preset(global, local);
    rank_units u = units_of(global);
    unsigned blocks = u.units / u.block;
    bool copies = u.systems_per_unit > 1 || strcmp(u.key, "ensemble.copies") == 0;
    if (blocks < (unsigned)ranks->size && copies)
        return clmc_fail(CLMC_ERR_INPUT, "%s: %u copies cannot be spread over %d MPI ranks (each rank runs at least "
                         "one copy of every temperature)", u.key, u.units, ranks->size);
    if (blocks < (unsigned)ranks->size)
        return clmc_fail(CLMC_ERR_INPUT, "%s: %u cannot be spread over %d MPI ranks in blocks of %u (each rank runs "
                         "at least one block)", u.key, u.units, ranks->size, u.block);
    unsigned first = share_start(blocks, ranks->rank, ranks->size) * u.block;
    unsigned last = share_start(blocks, ranks->rank + 1, ranks->size) * u.block;
    char count[192], first_system[64];
    snprintf(count, sizeof count, "%s=%u", u.key, last - first);
    snprintf(first_system, sizeof first_system, "ensemble.first_system=%u",
             systems->first_system + first * u.systems_per_unit);
    const char *overrides[] = {count, first_system};
    return parse_for_rank(global, overrides, 2, local);
}

/* A comma-separated list: entry `index` into `out`, or false when shorter. */
static bool list_entry(const char *list, int index, char *out, size_t size, int *entries)
{
    *entries = 1;
    for (const char *p = list; *p; p++) *entries += *p == ',';
    if (index >= *entries) return false;
    const char *start = list;
    for (int i = 0; i < index; i++) start = strchr(start, ',') + 1;
    size_t n = strcspn(start, ",");
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), start);
    return true;
}

clmc_status clmc_rank_device(const char *selector, clmc_device_info *device)
{
    const clmc_ranks_info *ranks = clmc_ranks();
    if (!selector || !*selector) selector = getenv("CLMC_DEVICE");
    if (selector && strchr(selector, ',')) {
        char entry[256];
        int entries = 0;
        if (!list_entry(selector, ranks->rank, entry, sizeof entry, &entries))
            return clmc_fail(CLMC_ERR_INPUT, "--device: the list names %d devices for %d MPI ranks (one per rank)",
                             entries, ranks->size);
        return clmc_device_select(entry, device);
    }
    clmc_device_info first;
    CLMC_TRY(clmc_device_select(selector, &first));
    clmc_device_info *all = NULL;
    size_t n = 0, matching = 0;
    CLMC_TRY(clmc_device_list(&all, &n));
    for (size_t i = 0; i < n; i++) {
        bool candidate = selector && *selector ? clmc_device_matches(&all[i], selector)
                                               : all[i].platform_index == first.platform_index &&
                                                     strcmp(all[i].type, first.type) == 0;
        if (candidate) all[matching++] = all[i];
    }
    *device = matching ? all[(size_t)ranks->local_rank % matching] : first;
    free(all);
    return CLMC_OK;
}

clmc_status clmc_ranks_record(const char *dir, const clmc_preset *global)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "clmc-ranks");
    cJSON_AddNumberToObject(root, "ranks", clmc_ranks()->size);
    cJSON_AddItemToObject(root, "preset", cJSON_Duplicate(clmc_preset_tree(global), true));
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_status status = clmc_write_file_atomic(dir, CLMC_RANKS_FILE, text, strlen(text));
    free(text);
    return status;
}

clmc_status clmc_ranks_recorded_preset(const char *dir, clmc_preset **global)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, CLMC_RANKS_FILE);
    int error = 0;
    char *text = clmc_read_text_file(path, 1 << 24, &error);
    if (!text)
        return clmc_fail(CLMC_ERR_INPUT, "%s: no %s: this folder's run did not run under %d MPI ranks (resume it as it "
                         "was started)", dir, CLMC_RANKS_FILE, clmc_ranks()->size);
    cJSON *root = cJSON_Parse(text);
    free(text);
    const cJSON *ranks = cJSON_GetObjectItem(root, "ranks"), *preset = cJSON_GetObjectItem(root, "preset");
    clmc_status status = CLMC_OK;
    if (!cJSON_IsNumber(ranks) || !cJSON_IsObject(preset))
        status = clmc_fail(CLMC_ERR_INPUT, "%s: damaged %s", dir, CLMC_RANKS_FILE);
    else if (ranks->valueint != clmc_ranks()->size)
        status = clmc_fail(CLMC_ERR_INPUT, "%s ran under %d MPI ranks; resume it with mpirun -np %d", dir,
                           ranks->valueint, ranks->valueint);
    char *json = status == CLMC_OK ? cJSON_PrintUnformatted(preset) : NULL;
    if (status == CLMC_OK && !json) status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    char override[8300];
    if (status == CLMC_OK) status = dir_override(dir, override, sizeof override);
    const char *overrides[] = {override};
    if (status == CLMC_OK) status = clmc_preset_parse(json, strlen(json), path, overrides, 1, global);
    free(json);
    cJSON_Delete(root);
    return status;
}

clmc_status clmc_ranks_unrecorded(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, CLMC_RANKS_FILE);
    int error = 0;
    char *text = clmc_read_text_file(path, 1 << 24, &error);
    if (!text) return CLMC_OK;
    cJSON *root = cJSON_Parse(text);
    free(text);
    const cJSON *ranks = cJSON_GetObjectItem(root, "ranks");
    int k = cJSON_IsNumber(ranks) ? ranks->valueint : 0;
    cJSON_Delete(root);
    return clmc_fail(CLMC_ERR_INPUT, "%s ran under %d MPI ranks; resume it with mpirun -np %d", dir, k, k);
}

clmc_status clmc_series_gather(const clmc_series *local, clmc_series *global)
{
    const clmc_ranks_info *ranks = clmc_ranks();
    size_t row = local->n_configs * local->n_columns, bytes = local->n_rows * row * sizeof(double);
    size_t *counts = calloc((size_t)ranks->size, sizeof *counts);
    uint64_t configs = local->n_configs;
    uint64_t *all_configs = calloc((size_t)ranks->size, sizeof *all_configs);
    double *received = NULL;
    clmc_status status = counts && all_configs ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK) status = clmc_ranks_gather(&configs, sizeof configs, all_configs);
    size_t total_configs = 0;
    for (int r = 0; r < ranks->size && ranks->rank == 0; r++) total_configs += (size_t)all_configs[r];
    if (status == CLMC_OK && ranks->rank == 0) {
        memset(global, 0, sizeof *global);
        global->n_columns = local->n_columns;
        global->n_configs = total_configs;
        global->n_rows = global->capacity = local->n_rows;
        global->sweeps = malloc((local->n_rows + 1) * sizeof *global->sweeps);
        global->rows = malloc((local->n_rows * total_configs * local->n_columns + 1) * sizeof *global->rows);
        received = malloc(local->n_rows * total_configs * local->n_columns * sizeof *received + 1);
        if (!global->sweeps || !global->rows || !received) status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
        else memcpy(global->sweeps, local->sweeps, local->n_rows * sizeof *global->sweeps);
    }
    status = clmc_ranks_agree(status);
    if (status == CLMC_OK) status = clmc_ranks_gatherv(local->rows, bytes, received, counts);
    /* received: rank-major [rank][measurement][config][column]; rows: [measurement][rank's configs...]. */
    for (size_t m = 0; status == CLMC_OK && ranks->rank == 0 && m < local->n_rows; m++) {
        size_t offset = 0, at = 0;
        for (int r = 0; r < ranks->size; r++) {
            size_t width = (size_t)all_configs[r] * local->n_columns;
            memcpy(global->rows + m * total_configs * local->n_columns + at, received + offset + m * width,
                   width * sizeof *received);
            at += width;
            offset += counts[r] / sizeof(double);
        }
    }
    free(received);
    free(counts);
    free(all_configs);
    return status;
}

cJSON *clmc_rank_result_preset(const clmc_preset *local, const clmc_preset *global)
{
    cJSON *tree = cJSON_Duplicate(clmc_preset_tree(local), true);
    cJSON *ensemble = cJSON_GetObjectItem(tree, "ensemble"), *output = cJSON_GetObjectItem(tree, "output");
    const clmc_systems_settings *systems = clmc_preset_systems(global);
    cJSON_ReplaceItemInObject(ensemble, "copies", cJSON_CreateNumber(systems->copies));
    cJSON_ReplaceItemInObject(ensemble, "first_system", cJSON_CreateNumber(systems->first_system));
    cJSON_ReplaceItemInObject(output, "dir", cJSON_CreateString(clmc_preset_output(global)->dir));
    rank_units u = units_of(global);
    const char *dot = strchr(u.key, '.');
    char section[64];
    snprintf(section, sizeof section, "%.*s", dot ? (int)(dot - u.key) : 0, u.key);
    cJSON *holder = dot ? cJSON_GetObjectItem(tree, section) : NULL;
    if (holder) cJSON_ReplaceItemInObject(holder, dot + 1, cJSON_CreateNumber(u.units)); /* the run-wide count */
    if (clmc_preset_population_runs(global)) /* the run-wide runs */
        cJSON_ReplaceItemInObject(ensemble, "runs",
                                  cJSON_CreateNumber((double)clmc_preset_int(global, "ensemble.runs")));
    return tree;
}

clmc_status clmc_rank_last_bytes(unsigned char **data, size_t *bytes)
{
    const clmc_ranks_info *ranks = clmc_ranks();
    uint64_t length = *data ? (uint64_t)*bytes + 1 : 0, *lengths = calloc((size_t)ranks->size, sizeof *lengths);
    size_t *counts = calloc((size_t)ranks->size, sizeof *counts);
    unsigned char *all = NULL, *mine = malloc((size_t)length + 1);
    clmc_status status = lengths && counts && mine ? clmc_ranks_allgather(&length, sizeof length, lengths)
                                                   : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK && length) { /* a leading byte: 1 present */
        mine[0] = 1;
        memcpy(mine + 1, *data, *bytes);
    }
    size_t total = 0;
    for (int r = 0; status == CLMC_OK && r < ranks->size; r++) total += counts[r] = (size_t)lengths[r];
    if (status == CLMC_OK && !(all = malloc(total ? total : 1)))
        status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK) status = clmc_ranks_allgatherv(mine, all, counts);
    size_t last = status == CLMC_OK ? counts[ranks->size - 1] : 0;
    if (status == CLMC_OK && !last) status = clmc_fail(CLMC_ERR_OTHER, "the last MPI rank has no result to pass on");
    if (status == CLMC_OK) {
        free(*data);
        *bytes = last - 1;
        *data = malloc(last);
        if (*data) memcpy(*data, all + total - last + 1, last - 1);
        else status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    }
    free(lengths), free(counts), free(all), free(mine);
    return status;
}

clmc_status clmc_rank_last_json(cJSON **item)
{
    char *text = *item ? cJSON_PrintUnformatted(*item) : NULL;
    size_t bytes = text ? strlen(text) + 1 : 0;
    clmc_status status = clmc_rank_last_bytes((unsigned char **)&text, &bytes);
    cJSON *parsed = status == CLMC_OK ? cJSON_Parse(text) : NULL;
    if (status == CLMC_OK && !parsed)
        status = clmc_fail(CLMC_ERR_OTHER, "the last MPI rank's result could not be read");
    if (status == CLMC_OK) {
        cJSON_Delete(*item);
        *item = parsed;
    }
    free(text);
    return status;
}

#define DEVICE_JSON_BYTES 4096

cJSON *clmc_rank_devices_json(const clmc_device_info *mine)
{
    const clmc_ranks_info *ranks = clmc_ranks();
    char own[DEVICE_JSON_BYTES] = {0};
    cJSON *json = clmc_device_json(mine);
    char *text = cJSON_PrintUnformatted(json);
    cJSON_Delete(json);
    snprintf(own, sizeof own, "%s", text ? text : "{}");
    free(text);
    char *all = ranks->rank == 0 ? calloc((size_t)ranks->size, DEVICE_JSON_BYTES) : NULL;
    if (clmc_ranks_gather(own, DEVICE_JSON_BYTES, all) != CLMC_OK || ranks->rank != 0) {
        free(all);
        return NULL;
    }
    cJSON *list = cJSON_CreateArray();
    for (int r = 0; r < ranks->size; r++) {
        cJSON *device = cJSON_Parse(all + (size_t)r * DEVICE_JSON_BYTES);
        cJSON_AddItemToArray(list, device ? device : cJSON_CreateNull());
    }
    free(all);
    return list;
}

clmc_status clmc_tempering_gather(const clmc_tempering *local, clmc_tempering *global, unsigned **config_at,
                                  uint64_t **counts)
{
    *config_at = NULL;
    *counts = NULL;
    if (local->n_temperatures < 2 || local->independent) return CLMC_OK;
    const clmc_ranks_info *ranks = clmc_ranks();
    unsigned pairs = local->n_temperatures - 1;
    long long *sums = malloc((2 * (size_t)pairs + 1) * sizeof *sums);
    uint64_t configs = local->n_configs, *all_configs = calloc((size_t)ranks->size, sizeof *all_configs);
    size_t *bytes = calloc((size_t)ranks->size, sizeof *bytes);
    *counts = malloc(2 * (size_t)pairs * sizeof **counts);
    *config_at = malloc(((size_t)global->n_configs + 1) * sizeof **config_at);
    clmc_status status = sums && all_configs && bytes && *counts && *config_at
                             ? CLMC_OK
                             : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    status = clmc_ranks_agree(status);
    if (status == CLMC_OK) {
        for (unsigned t = 0; t < pairs; t++) {
            sums[t] = (long long)local->accepted[t];
            sums[pairs + t] = (long long)local->attempted[t];
        }
        sums[2 * pairs] = (long long)local->round_trips;
        clmc_ranks_sum_int64(sums, (int)(2 * pairs + 1));
        for (unsigned t = 0; t < 2 * pairs; t++) (*counts)[t] = (uint64_t)sums[t];
        global->accepted = *counts;
        global->attempted = *counts + pairs;
        global->round_trips = (uint64_t)sums[2 * pairs];
        status = clmc_ranks_gather(&configs, sizeof configs, all_configs);
    }
    if (status == CLMC_OK)
        status = clmc_ranks_gatherv(local->config_at, local->n_configs * sizeof *local->config_at, *config_at, bytes);
    /* Each rank's configurations are numbered from 0: shift them to the run's numbering. */
    for (size_t r = 0, at = 0, first = 0; status == CLMC_OK && ranks->rank == 0 && r < (size_t)ranks->size; r++) {
        for (size_t c = 0; c < all_configs[r]; c++) (*config_at)[at + c] += (unsigned)first;
        at += all_configs[r];
        first += all_configs[r];
    }
    if (status == CLMC_OK) global->config_at = *config_at;
    free(sums);
    free(all_configs);
    free(bytes);
    return status;
}

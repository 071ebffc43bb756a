/* The run loop: thermalize, sweep, measure in device-side batches, estimate,
 * and write the result files; plus the benchmark of update kernels. */
#include "clmc/engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/checkpoint.h"
#include "ensembles/ensemble.h"
#include "engine/interrupt.h"
#include "engine/limits.h"
#include "models/model.h"
#include "output/results.h"
#include "engine/series.h"
#include "engine/tuning.h"

#define FINISH_EVERY_SWEEPS 256

typedef struct {
    const clmc_model_ops *ops;
    void *state;
    clmc_model_shape shape;
    size_t n_columns;
    clmc_runtime *rt;
    clmc_ensemble ensemble;
    cJSON *tuning; /* where the tunable keys' values came from */
    clmc_launch_options launch;
} model_instance;

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static clmc_status instance_open(clmc_preset *preset, const clmc_device_info *device,
                                 const clmc_launch_options *launch, model_instance *m)
{
    memset(m, 0, sizeof *m);
    if (launch) m->launch = *launch;
    clmc_ensemble_settings ensemble;
    CLMC_TRY(clmc_ensemble_settings_read(preset, &ensemble));
    m->ops = clmc_model_find(clmc_preset_string(preset, "model.type"));
    if (!m->ops) return clmc_fail(CLMC_ERR_INPUT, "model.type: unknown model");
    m->tuning = cJSON_CreateObject();
    if (m->tuning && m->launch.no_tuning) cJSON_AddStringToObject(m->tuning, "source", "model defaults (--no-tuning)");
    else if (m->tuning) clmc_tuning_apply(preset, m->ops, device, m->tuning);
    CLMC_TRY(clmc_check_device_memory(m->ops, preset, device));
    CLMC_TRY(clmc_runtime_open_device(device, &m->rt));
    if (m->launch.profile) CLMC_TRY(clmc_runtime_profile(m->rt));
    CLMC_TRY(m->ops->create(m->rt, preset, &m->state, &m->shape));
    while (m->shape.series_columns[m->n_columns]) m->n_columns++;
    return clmc_ensemble_create(&m->ensemble, &ensemble, m->rt, m->ops, m->state, &m->shape);
}

static void instance_close(model_instance *m)
{
    if (m->state) m->ops->destroy(m->state);
    clmc_ensemble_free(&m->ensemble);
    clmc_runtime_close(m->rt);
    cJSON_Delete(m->tuning);
    m->tuning = NULL;
    m->state = NULL;
    m->rt = NULL;
}

typedef struct {
    bool quiet;
    double started, last_report;
    uint64_t first, total; /* first: the sweep a resumed run started at */
} progress;

static void progress_report(progress *p, uint64_t done, bool final)
{
    if (p->quiet) return;
    double now = now_seconds();
    if (!final && now - p->last_report < 1.0) return;
    p->last_report = now;
    double elapsed = now - p->started, rate = elapsed > 0 ? (double)(done - p->first) / elapsed : 0;
    double eta = rate > 0 ? (double)(p->total - done) / rate : 0;
    fprintf(stderr, "\rclmc: sweep %llu/%llu (%.1f%%), %.1f sweeps/s, ETA %.0f s   %s",
            (unsigned long long)done, (unsigned long long)p->total,
            p->total ? 100.0 * (double)done / (double)p->total : 100.0, rate, eta, final ? "\n" : "");
    fflush(stderr);
}

/* Checkpoints and interruption of the sweep loop (src/engine/checkpoint.h). */
typedef struct {
    const char *dir;
    clmc_checkpoint_plan plan;
} run_control;

static bool checkpoint_due(run_control *c, uint64_t done, uint64_t total)
{
    if (done == total) return false; /* the results follow at once */
    if (c->plan.every_sweeps) return done % c->plan.every_sweeps == 0;
    return c->plan.every_seconds > 0 && now_seconds() - c->plan.last_written >= c->plan.every_seconds;
}

/* Collects the pending measurements and stops the run at the first value
 * that is not finite, or when the model's guard finds its state broken (spin
 * lengths, lost particles): the last checkpoint then holds the last good
 * state, because every checkpoint is written right after this check. */
static clmc_status collect_checked(model_instance *m, clmc_series *s, unsigned pending, uint64_t done,
                                   const run_control *c)
{
    size_t first = s->n_rows * s->n_configs * s->n_columns;
    CLMC_TRY(clmc_ensemble_collect(&m->ensemble, pending, s->pending_at));
    CLMC_TRY(clmc_series_collect(s, m->ops, m->state, pending));
    for (size_t k = first; k < s->n_rows * s->n_configs * s->n_columns; k++)
        if (!isfinite(s->rows[k]))
            return clmc_fail(CLMC_ERR_OTHER, "observable \"%s\" is %g at sweep %llu; stopped (the last good state is "
                             "the last checkpoint in %s, if run.checkpoint_every was set)",
                             m->shape.series_columns[k % s->n_columns], s->rows[k],
                             (unsigned long long)s->sweeps[k / (s->n_configs * s->n_columns)], c->dir);
    if (!m->ops->guard || m->ops->guard(m->state) == CLMC_OK) return CLMC_OK;
    char broken[512];
    snprintf(broken, sizeof broken, "%s", clmc_error_message());
    return clmc_fail(CLMC_ERR_OTHER, "%s after sweep %llu; stopped (the last good state is the last checkpoint in %s, "
                     "if run.checkpoint_every was set)", broken, (unsigned long long)done, c->dir);
}

static clmc_status write_checkpoint(model_instance *m, const clmc_preset *preset, const clmc_series *s, uint64_t done,
                                    run_control *c)
{
    CLMC_TRY(clmc_runtime_finish(m->rt, NULL));
    CLMC_TRY(clmc_ensemble_sync(&m->ensemble));
    CLMC_TRY(clmc_checkpoint_save(c->dir, preset, m->ops, m->state, &m->ensemble.map, s, done,
                                  clmc_runtime_device(m->rt)));
    c->plan.last_written = now_seconds();
    return CLMC_OK;
}

static clmc_status interrupted(const model_instance *m, int signal_number, uint64_t done, const run_control *c)
{
    if (!m->ops->save_state)
        return clmc_fail(CLMC_ERR_OTHER, "interrupted by signal %d after sweep %llu; model \"%s\" cannot checkpoint "
                         "yet, so the run cannot be resumed", signal_number, (unsigned long long)done, m->ops->type);
    return clmc_fail(CLMC_ERR_OTHER, "interrupted by signal %d after sweep %llu; checkpoint written to %s/%s; "
                     "continue with: clmc run --resume %s", signal_number, (unsigned long long)done, c->dir,
                     CLMC_CHECKPOINT_FILE, c->dir);
}

static clmc_status run_sweeps(model_instance *m, const clmc_preset *preset, clmc_series *s, progress *p,
                              run_control *c)
{
    const clmc_run_settings *run = clmc_preset_run(preset);
    uint64_t thermalization = run->thermalization, every = run->measure_every;
    p->total = thermalization + run->sweeps;
    unsigned pending = 0;
    CLMC_TRY(clmc_ensemble_start(&m->ensemble)); /* fresh or restored */
    bool ran;
    CLMC_TRY(clmc_ensemble_run(&m->ensemble, &ran)); /* a kind with its own loop */
    if (ran) return CLMC_OK;
    for (uint64_t t = p->first; t < p->total; t++) {
        CLMC_TRY(clmc_ensemble_sweep(&m->ensemble, t));
        if (t >= thermalization && (t - thermalization + 1) % every == 0) {
            clmc_series_note(s, pending, t + 1, &m->ensemble.map);
            CLMC_TRY(clmc_ensemble_note(&m->ensemble, pending));
            CLMC_TRY(m->ops->measure(m->state, pending++));
        }
        if (pending == m->shape.measure_batch) {
            CLMC_TRY(collect_checked(m, s, pending, t + 1, c));
            pending = 0;
        }
        CLMC_TRY(clmc_ensemble_after_sweep(&m->ensemble, t));
        if ((t + 1) % FINISH_EVERY_SWEEPS == 0) {
            CLMC_TRY(clmc_runtime_finish(m->rt, NULL));
            progress_report(p, t + 1, false);
        }
        int signal_number = clmc_interrupt_signal();
        if ((signal_number && t + 1 < p->total) || checkpoint_due(c, t + 1, p->total)) {
            CLMC_TRY(collect_checked(m, s, pending, t + 1, c));
            pending = 0;
            if (m->ops->save_state) CLMC_TRY(write_checkpoint(m, preset, s, t + 1, c));
            if (signal_number) return interrupted(m, signal_number, t + 1, c);
        }
    }
    CLMC_TRY(collect_checked(m, s, pending, p->total, c));
    return clmc_ensemble_sync(&m->ensemble);
}

/* seconds: device time of the update kernels (profiling events); wall_seconds:
 * the whole sweep loop (measurements, exchanges and host work included);
 * phases: the parts of the update a model named (clmc_runtime_set_phase). */
static cJSON *performance_json(const clmc_runtime *rt, double updates, double seconds, double wall_seconds)
{
    cJSON *perf = cJSON_CreateObject();
    cJSON_AddNumberToObject(perf, "updates", updates);
    cJSON_AddNumberToObject(perf, "seconds", seconds);
    cJSON_AddNumberToObject(perf, "ns_per_update", updates > 0 ? seconds * 1e9 / updates : 0);
    cJSON_AddNumberToObject(perf, "wall_seconds", wall_seconds);
    const char *names[CLMC_MAX_PHASES];
    double phase_seconds[CLMC_MAX_PHASES];
    size_t n = clmc_runtime_phases(rt, names, phase_seconds, CLMC_MAX_PHASES);
    cJSON *phases = n ? cJSON_AddObjectToObject(perf, "phases") : NULL;
    for (size_t i = 0; i < n; i++) {
        cJSON *phase = cJSON_AddObjectToObject(phases, names[i]);
        cJSON_AddNumberToObject(phase, "seconds", phase_seconds[i]);
        cJSON_AddNumberToObject(phase, "ns_per_update", updates > 0 ? phase_seconds[i] * 1e9 / updates : 0);
    }
    return perf;
}

/* configuration.pgm: binary grey map (P5) of the model's picture. */
static clmc_status write_picture(model_instance *m, const char *dir)
{
    unsigned char *grey = NULL;
    int width = 0, height = 0;
    clmc_status status = m->ops->picture(m->state, &grey, &width, &height);
    char header[64];
    int n = snprintf(header, sizeof header, "P5\n%d %d\n255\n", width, height);
    size_t pixels = (size_t)width * (size_t)height;
    char *file = status == CLMC_OK ? malloc((size_t)n + pixels) : NULL;
    if (status == CLMC_OK && !file) status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK) {
        memcpy(file, header, (size_t)n);
        memcpy(file + n, grey, pixels);
        status = clmc_write_file_atomic(dir, "configuration.pgm", file, (size_t)n + pixels);
    }
    free(file);
    free(grey);
    return status;
}

static clmc_status write_results(model_instance *m, const clmc_preset *preset, const clmc_series *s,
                                 double kernel_seconds, double wall_seconds, const char *dir)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "clmc_version", CLMC_VERSION);
    cJSON_AddItemToObject(root, "preset", cJSON_Duplicate(clmc_preset_tree(preset), true));
    cJSON_AddItemToObject(root, "device", clmc_device_json(clmc_runtime_device(m->rt)));
    cJSON_AddItemToObject(root, "options", clmc_launch_options_json(&m->launch));
    if (m->tuning) cJSON_AddItemReferenceToObject(root, "tuning", m->tuning);
    cJSON *observables = cJSON_AddObjectToObject(root, "observables");
    bool written;
    clmc_status status = clmc_ensemble_results(&m->ensemble, observables, &written);
    if (status == CLMC_OK && !written) status = clmc_series_estimate(s, &m->ensemble.map, m->ops, m->state, observables);
    cJSON_AddNumberToObject(observables, "measurements", (double)s->n_rows);
    uint64_t total = clmc_preset_run(preset)->thermalization + clmc_preset_run(preset)->sweeps;
    cJSON_AddItemToObject(root, "performance",
                          performance_json(m->rt, m->shape.updates_per_sweep * (double)total, kernel_seconds, wall_seconds));
    cJSON *checks = cJSON_AddObjectToObject(root, "checks");
    if (status == CLMC_OK) status = m->ops->checks(m->state, checks);
    char *json = status == CLMC_OK ? cJSON_Print(root) : NULL;
    char *csv = status == CLMC_OK ? clmc_series_text(s, &m->ensemble.map, m->shape.series_columns) : NULL;
    if (status == CLMC_OK && (!json || !csv)) status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK && clmc_preset_output(preset)->picture) status = write_picture(m, dir);
    if (status == CLMC_OK) status = clmc_write_file_atomic(dir, "series.csv", csv, strlen(csv));
    if (status == CLMC_OK) {
        size_t n = strlen(json);
        json[n] = '\n';
        status = clmc_write_file_atomic(dir, "result.json", json, n + 1);
        json[n] = '\0';
    }
    free(json);
    free(csv);
    cJSON_Delete(root);
    return status;
}

static clmc_status allocate_series(const model_instance *m, const clmc_preset *preset, clmc_series *s)
{
    uint64_t n = clmc_preset_run(preset)->sweeps / clmc_preset_run(preset)->measure_every;
    uint64_t values = n * m->n_columns * m->ensemble.map.n_configs;
    if (values > (uint64_t)1 << 28)
        return clmc_fail(CLMC_ERR_INPUT, "run: %llu measured values exceed the 2^28 kept in memory; raise "
                         "run.measure_every", (unsigned long long)values);
    return clmc_series_init(s, (size_t)n, &m->shape, m->n_columns);
}

/* Continues from a checkpoint (clmc_checkpoint_check passed): its state
 * replaces the fresh one. */
static clmc_status resume_from(model_instance *m, const clmc_preset *preset, const clmc_checkpoint *checkpoint,
                               clmc_series *s, progress *p)
{
    uint64_t total = clmc_preset_run(preset)->thermalization + clmc_preset_run(preset)->sweeps;
    CLMC_TRY(clmc_checkpoint_restore(checkpoint, m->ops, m->state, &m->ensemble.map, s));
    p->first = checkpoint->next_sweep;
    if (!p->quiet)
        fprintf(stderr, "clmc: resuming at sweep %llu of %llu (checkpoint written on %s)\n",
                (unsigned long long)p->first, (unsigned long long)total, checkpoint->device_name);
    return CLMC_OK;
}

/* The output directory of a run: locked for the whole run (one run at a time
 * per directory), and for a fresh run cleared of an earlier run's checkpoint
 * (refused unless `overwrite`), so that --resume never replays an older run
 * over a newer result. */
typedef struct {
    const char *dir;
    int lock; /* -1 until taken */
    bool fresh, overwrite;
} output_claim;

static clmc_status claim_output(output_claim *claim)
{
    if (claim->lock >= 0) return CLMC_OK;
    CLMC_TRY(clmc_output_lock(claim->dir, &claim->lock));
    return claim->fresh ? clmc_checkpoint_clear(claim->dir, claim->overwrite) : CLMC_OK;
}

/* Claims the directory now if it exists: refusals come before any device work. */
static clmc_status claim_existing_output(output_claim *claim)
{
    struct stat st;
    return stat(claim->dir, &st) == 0 ? claim_output(claim) : CLMC_OK;
}

static void release_output(output_claim *claim)
{
    if (claim->lock >= 0) close(claim->lock);
    claim->lock = -1;
}

static clmc_status run_instance(model_instance *m, clmc_preset *preset, const clmc_run_options *options,
                                const clmc_checkpoint *checkpoint, output_claim *claim)
{
    run_control control = {.dir = clmc_preset_output(preset)->dir};
    CLMC_TRY(clmc_checkpoint_plan_read(preset, m->ops, &control.plan));
    const char *dir = control.dir;
    CLMC_TRY(clmc_make_directory(dir));
    CLMC_TRY(claim_output(claim));
    clmc_series s = {0};
    clmc_status status = allocate_series(m, preset, &s);
    progress p = {.quiet = options && options->quiet, .started = now_seconds()};
    if (status == CLMC_OK && checkpoint) status = resume_from(m, preset, checkpoint, &s, &p);
    control.plan.last_written = now_seconds();
    double kernel_seconds = 0;
    clmc_runtime_reset_clock(m->rt);
    if (status == CLMC_OK) status = run_sweeps(m, preset, &s, &p, &control);
    if (status == CLMC_OK) status = clmc_runtime_finish(m->rt, &kernel_seconds);
    double wall_seconds = now_seconds() - p.started;
    if (status == CLMC_OK) progress_report(&p, p.total, true);
    if (status == CLMC_OK) status = write_results(m, preset, &s, kernel_seconds, wall_seconds, dir);
    clmc_series_free(&s);
    return status;
}

/* Says on stderr where the tunable values came from. */
static void print_tuning(const cJSON *tuning)
{
    const cJSON *source = cJSON_GetObjectItem(tuning, "source"), *value;
    const cJSON *file = cJSON_GetObjectItem(tuning, "file"), *problem = cJSON_GetObjectItem(tuning, "cache_problem");
    if (cJSON_IsString(problem)) fprintf(stderr, "clmc: tuning cache skipped: %s\n", problem->valuestring);
    if (!cJSON_IsString(source)) return;
    fprintf(stderr, "clmc: launch parameters: %s", source->valuestring);
    if (cJSON_IsString(file)) fprintf(stderr, " from %s", file->valuestring);
    cJSON_ArrayForEach(value, cJSON_GetObjectItem(tuning, "values")) fprintf(stderr, " %s=%g", value->string,
                                                                             value->valuedouble);
    fprintf(stderr, "\n");
}

clmc_status clmc_run(clmc_preset *preset, const clmc_run_options *options)
{
    clmc_device_info device;
    CLMC_TRY(clmc_device_select(options ? options->device : NULL, &device));
    output_claim claim = {.dir = clmc_preset_output(preset)->dir, .lock = -1, .fresh = true,
                          .overwrite = options && options->overwrite};
    model_instance m;
    memset(&m, 0, sizeof m);
    clmc_status status = claim_existing_output(&claim);
    if (status == CLMC_OK) status = instance_open(preset, &device, options ? &options->launch : NULL, &m);
    if (status == CLMC_OK && !(options && options->quiet)) print_tuning(m.tuning);
    if (status == CLMC_OK) status = run_instance(&m, preset, options, NULL, &claim);
    instance_close(&m);
    release_output(&claim);
    return status;
}

/* The preset stored in the checkpoint, writing into `dir` wherever it was. */
static clmc_status checkpoint_preset(const clmc_checkpoint *c, const char *dir, clmc_preset **preset)
{
    cJSON *quoted = cJSON_CreateString(dir);
    char *text = quoted ? cJSON_PrintUnformatted(quoted) : NULL;
    size_t size = (text ? strlen(text) : 0) + sizeof "output.dir=";
    char *override = text ? malloc(size) : NULL;
    clmc_status status = override ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK) {
        snprintf(override, size, "output.dir=%s", text);
        const char *overrides[] = {override};
        status = clmc_preset_parse(c->preset_json, strlen(c->preset_json), "checkpoint preset", overrides, 1, preset);
    }
    free(override);
    free(text);
    cJSON_Delete(quoted);
    return status;
}

/* The checkpoint is read and checked under the directory's lock, before
 * anything in the directory is written. */
clmc_status clmc_resume(const char *dir, const clmc_run_options *options)
{
    output_claim claim = {.dir = dir, .lock = -1};
    CLMC_TRY(claim_existing_output(&claim));
    clmc_checkpoint checkpoint;
    clmc_status status = clmc_checkpoint_read(dir, &checkpoint);
    if (status != CLMC_OK) {
        release_output(&claim);
        return status;
    }
    clmc_preset *preset = NULL;
    clmc_device_info device;
    status = checkpoint_preset(&checkpoint, dir, &preset);
    if (status == CLMC_OK) status = clmc_checkpoint_check(dir, &checkpoint, clmc_preset_run(preset));
    if (status == CLMC_OK) status = clmc_device_select(options ? options->device : NULL, &device);
    model_instance m;
    memset(&m, 0, sizeof m);
    if (status == CLMC_OK) status = instance_open(preset, &device, options ? &options->launch : NULL, &m);
    if (status == CLMC_OK) status = run_instance(&m, preset, options, &checkpoint, &claim);
    instance_close(&m);
    release_output(&claim);
    clmc_preset_free(preset);
    clmc_checkpoint_free(&checkpoint);
    return status;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static clmc_status time_repetitions(model_instance *m, const clmc_preset *preset, int repetitions,
                                    double *ns, clmc_bench_entry *e)
{
    uint64_t per_repetition = clmc_preset_run(preset)->sweeps / (uint64_t)repetitions;
    if (per_repetition < 1) per_repetition = 1;
    e->sweeps_per_repetition = (double)per_repetition;
    uint64_t sweep = 0;
    for (int warm_up = 0; warm_up < 2; warm_up++) CLMC_TRY(m->ops->sweep(m->state, sweep++));
    CLMC_TRY(clmc_runtime_finish(m->rt, NULL));
    double updates = m->shape.updates_per_sweep * (double)per_repetition, phase_seconds[CLMC_MAX_PHASES];
    for (int r = 0; r < repetitions; r++) {
        clmc_runtime_reset_clock(m->rt);
        for (uint64_t i = 0; i < per_repetition; i++) CLMC_TRY(m->ops->sweep(m->state, sweep++));
        double seconds = 0;
        CLMC_TRY(clmc_runtime_finish(m->rt, &seconds));
        ns[r] = seconds * 1e9 / updates;
        e->n_phases = clmc_runtime_phases(m->rt, e->phase_names, phase_seconds, CLMC_MAX_PHASES);
        for (size_t k = 0; k < e->n_phases; k++)
            e->phase_ns_per_update[k] += phase_seconds[k] * 1e9 / (updates * repetitions);
    }
    return CLMC_OK;
}

static void summarise_bench(const model_instance *m, double *ns, clmc_bench_entry *e)
{
    int n = e->repetitions;
    qsort(ns, (size_t)n, sizeof *ns, compare_doubles);
    e->ns_per_update = n % 2 ? ns[n / 2] : 0.5 * (ns[n / 2 - 1] + ns[n / 2]);
    e->ns_per_update_min = ns[0];
    e->ns_per_update_max = ns[n - 1];
    e->updates_per_second = 1e9 / e->ns_per_update;
    e->bytes_per_update = m->shape.bytes_per_sweep / m->shape.updates_per_sweep;
    e->achieved_bytes_per_second = e->bytes_per_update * e->updates_per_second;
}

void clmc_bench_device(clmc_preset *preset, const clmc_device_info *device, int repetitions,
                       const clmc_launch_options *launch, clmc_bench_entry *e)
{
    memset(e, 0, sizeof *e);
    e->device = *device;
    e->repetitions = repetitions < 1 ? 1 : repetitions;
    double *ns = calloc((size_t)e->repetitions, sizeof *ns);
    model_instance m;
    clmc_status status = ns ? instance_open(preset, device, launch, &m)
                            : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK) e->resolved_preset = clmc_preset_to_json(preset);
    if (status == CLMC_OK) status = time_repetitions(&m, preset, e->repetitions, ns, e);
    if (status == CLMC_OK) summarise_bench(&m, ns, e);
    if (status == CLMC_OK) status = clmc_measure_copy_bandwidth(m.rt, &e->copy_bytes_per_second);
    if (ns) instance_close(&m);
    free(ns);
    e->status = status;
    if (status != CLMC_OK) snprintf(e->reason, sizeof e->reason, "%s", clmc_error_message());
}

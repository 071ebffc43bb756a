/* The run loop: thermalize, sweep, measure in device-side batches, estimate,
 * and write the result files; plus the benchmark of update kernels. */
#include "clmc/engine.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/checkpoint.h"
#include "engine/distribute.h"
#include "ensembles/ensemble.h"
#include "engine/interrupt.h"
#include "engine/limits.h"
#include "models/model.h"
#include "output/results.h"
#include "engine/series.h"
#include "engine/tuning.h"
#include "runtime/fault.h"
#include "runtime/ranks.h"

#define FINISH_EVERY_SWEEPS 256
/* Under several MPI ranks, signals and time-based checkpoints are agreed on
 * every this many sweeps, so that all ranks stop or checkpoint at one sweep. */
#define AGREE_EVERY_SWEEPS 16

typedef struct {
    const clmc_model_ops *ops;
    void *state;
    clmc_model_shape shape;
    size_t n_columns;
    clmc_runtime *rt;
    clmc_ensemble ensemble;
    cJSON *tuning; /* where the tunable keys' values came from */
    clmc_launch_options launch;
    struct startup_clock *startup; /* NULL: not timed (bench) */
} model_instance;

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Start-up (issue 19): the phases from the command's start to the first
 * sweep, each closed by startup_mark; program builds and loads inside a phase
 * (the runtime's clock, clmc_runtime_program_seconds) are taken out of it
 * into "programs".  `--profile` prints them and the result records them as
 * performance.startup (docs/results.md). */
#define STARTUP_PHASES 10
typedef struct startup_clock {
    double started, last, programs, programs_seen;
    const char *name[STARTUP_PHASES];
    double seconds[STARTUP_PHASES];
    int n;
} startup_clock;

static startup_clock startup_begin(const clmc_run_options *options)
{
    double t = now_seconds();
    double started = options && options->started > 0 && options->started <= t ? options->started : t;
    return (startup_clock){.started = started, .last = started};
}

/* Closes phase `name`; rt: the runtime once it exists, else NULL. */
static void startup_mark(startup_clock *c, const char *name, const clmc_runtime *rt)
{
    if (!c) return;
    double t = now_seconds(), built = rt ? clmc_runtime_program_seconds(rt) - c->programs_seen : 0;
    c->programs_seen += built;
    c->programs += built;
    if (c->n < STARTUP_PHASES) {
        c->name[c->n] = name;
        c->seconds[c->n++] = t - c->last - built;
    }
    c->last = t;
}

/* Ends the start-up at the first sweep. */
static void startup_end(model_instance *m, const char *name)
{
    startup_clock *c = m->startup;
    if (!c) return;
    startup_mark(c, name, m->rt);
    if (c->n < STARTUP_PHASES) {
        c->name[c->n] = "programs";
        c->seconds[c->n++] = c->programs;
    }
    if (!m->launch.profile) return;
    fprintf(stderr, "clmc profile: start-up %.3f s to the first sweep:", c->last - c->started);
    for (int i = 0; i < c->n; i++) fprintf(stderr, " %s %.3f", c->name[i], c->seconds[i]);
    fprintf(stderr, " s\n");
}

static cJSON *startup_json(const startup_clock *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "seconds", c->last - c->started);
    for (int i = 0; i < c->n; i++) cJSON_AddNumberToObject(o, c->name[i], c->seconds[i]);
    return o;
}

/* global: under several MPI ranks the run's preset (preset: this rank's
 * part), else NULL.  Parallel tempering of one system across the ranks
 * keeps the run's ensemble (every temperature) on every rank, the model
 * holding this rank's share of the configurations.  startup: the run's
 * start-up clock (NULL: not timed, clmc bench). */
static clmc_status instance_open(clmc_preset *preset, const clmc_preset *global, const clmc_device_info *device,
                                 const clmc_launch_options *launch, startup_clock *startup, model_instance *m)
{
    memset(m, 0, sizeof *m);
    m->startup = startup;
    if (launch) m->launch = *launch;
    clmc_ensemble_settings ensemble;
    bool temperatures = global && clmc_rank_temperatures(global);
    CLMC_TRY(clmc_ensemble_settings_read(temperatures ? global : preset, &ensemble));
    if (temperatures) clmc_rank_temperature_share(global, &ensemble.share_first, &ensemble.share_count);
    if (temperatures) clmc_preset_chain_ranks(preset); /* the model's share of the configurations */
    m->ops = clmc_model_find(clmc_preset_string(preset, "model.type"));
    if (!m->ops) return clmc_fail(CLMC_ERR_INPUT, "model.type: unknown model");
    m->tuning = cJSON_CreateObject();
    if (m->tuning && m->launch.no_tuning) cJSON_AddStringToObject(m->tuning, "source", "model defaults (--no-tuning)");
    else if (m->tuning) clmc_tuning_apply(preset, m->ops, device, m->tuning);
    CLMC_TRY(clmc_check_device_memory(m->ops, preset, device));
    startup_mark(m->startup, "tuning", NULL);
    CLMC_TRY(clmc_runtime_open_device(device, &m->rt));
    if (m->launch.profile) CLMC_TRY(clmc_runtime_profile(m->rt));
    startup_mark(m->startup, "context", m->rt);
    CLMC_TRY(m->ops->create(m->rt, preset, &m->state, &m->shape));
    startup_mark(m->startup, "model", m->rt);
    while (m->shape.series_columns[m->n_columns]) m->n_columns++;
    clmc_status status = clmc_ensemble_create(&m->ensemble, &ensemble, m->rt, m->ops, m->state, &m->shape);
    startup_mark(m->startup, "ensemble", m->rt);
    return status;
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
    const char *resume_dir; /* what --resume takes: dir, or the run's folder above the ranks' */
    bool interrupted;
    clmc_h5 *h5; /* output.format "hdf5" in one process: the series appended as measured */
    uint64_t generation; /* checkpoints written in the run so far, resumes included */
    /* Test only (CLMC_FAULT_COMMIT_AFTER, src/runtime/fault.h): the last rank
     * is killed between the phases of the first checkpoint after this many
     * sweeps, once every other rank has committed; 0: never. */
    uint64_t fault_commit_after;
} run_control;

static bool checkpoint_due(run_control *c, uint64_t done, uint64_t total)
{
    if (done == total) return false; /* the results follow at once */
    if (c->plan.every_sweeps) return done % c->plan.every_sweeps == 0;
    return c->plan.every_seconds > 0 && now_seconds() - c->plan.last_written >= c->plan.every_seconds;
}

/* Whether to stop (a signal) or checkpoint after sweep `done`.  Under
 * several MPI ranks every rank gives the same answer: a checkpoint every N
 * sweeps needs no agreement; signals and checkpoints every so many seconds
 * are agreed on every AGREE_EVERY_SWEEPS sweeps.  The agreement does not
 * wait for the slowest rank: what each rank saw at one agreement sweep is
 * reduced in the background and acted on at the next (and at the run's
 * end), so a launch-bound rank never idles in it. */
static bool stop_or_checkpoint(run_control *c, uint64_t done, uint64_t total, int *signal_number)
{
    *signal_number = clmc_interrupt_signal();
    if (!clmc_ranks_many()) return (*signal_number && done < total) || checkpoint_due(c, done, total);
    bool by_sweeps = c->plan.every_sweeps && checkpoint_due(c, done, total), by_time = false;
    if (done % AGREE_EVERY_SWEEPS == 0 || done == total) {
        uint64_t agreed[2] = {0, 0};
        clmc_ranks_max_end(agreed, 2); /* begun AGREE_EVERY_SWEEPS sweeps ago, if any */
        by_time = agreed[1] != 0;
        /* What this rank sees now (a checkpoint written now is not due again). */
        uint64_t local[2] = {(uint64_t)*signal_number, !by_time && !c->plan.every_sweeps && checkpoint_due(c, done, total)};
        if (!agreed[0] && done < total) clmc_ranks_max_begin(local, 2);
        *signal_number = (int)agreed[0];
    } else {
        *signal_number = 0;
    }
    return (*signal_number && done < total) || by_sweeps || by_time;
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
    if (!m->ops->guard || m->ops->guard(m->state) == CLMC_OK)
        return c->h5 ? clmc_series_append_h5(s, &m->ensemble.map, c->h5) : CLMC_OK;
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
    unsigned char *blob;
    size_t bytes;
    CLMC_TRY(clmc_ensemble_save(&m->ensemble, &blob, &bytes));
    clmc_status status = clmc_checkpoint_prepare(c->dir, preset, m->ops, m->state, &m->ensemble.map, s, done,
                                                 c->generation + 1, clmc_runtime_device(m->rt), blob, bytes);
    free(blob);
    /* Under several ranks every rank writes its new checkpoint beside the
     * old one and they agree before any commits, so that each rank's
     * checkpoint.clmc or checkpoint.prev always holds the newest generation
     * all have written (clmc_checkpoint_read_agreed). */
    if (clmc_ranks_many()) status = clmc_ranks_agree(status);
    bool fault = clmc_ranks_many() && c->fault_commit_after && done >= c->fault_commit_after;
    bool killed = fault && clmc_ranks()->rank == clmc_ranks()->size - 1;
    if (status == CLMC_OK && !killed) status = clmc_checkpoint_commit(c->dir);
    if (fault && status == CLMC_OK) {
        clmc_ranks_agree(CLMC_OK); /* every other rank has committed */
        if (killed) raise(SIGKILL);
        c->fault_commit_after = 0;
    }
    if (status == CLMC_OK) c->generation++;
    c->plan.last_written = now_seconds();
    return status;
}

static clmc_status interrupted(const model_instance *m, int signal_number, uint64_t done, run_control *c)
{
    c->interrupted = true;
    if (clmc_ranks_many() && m->ops->save_state)
        return clmc_fail(CLMC_ERR_OTHER, "interrupted by signal %d after sweep %llu; every rank's checkpoint written "
                         "under %s; continue with: mpirun -np %d clmc run --resume %s", signal_number,
                         (unsigned long long)done, c->resume_dir, clmc_ranks()->size, c->resume_dir);
    if (!m->ops->save_state)
        return clmc_fail(CLMC_ERR_OTHER, "interrupted by signal %d after sweep %llu; model \"%s\" cannot checkpoint "
                         "yet, so the run cannot be resumed", signal_number, (unsigned long long)done, m->ops->type);
    return clmc_fail(CLMC_ERR_OTHER, "interrupted by signal %d after sweep %llu; checkpoint written to %s/%s; "
                     "continue with: clmc run --resume %s", signal_number, (unsigned long long)done, c->dir,
                     CLMC_CHECKPOINT_FILE, c->dir);
}

/* Between the steps of a kind with its own loop (population annealing):
 * a checkpoint (its sweeps do not count as the engine's: next_sweep 0, no
 * rows; the kind's blob holds where it is) when run.checkpoint_every is due
 * (every N sweeps: each time the sweeps done pass a multiple of N), or on a
 * signal, which then stops the run.  Under several MPI ranks (multicanonical
 * walkers) every rank calls it at the same points and they agree. */
typedef struct {
    model_instance *m;
    const clmc_preset *preset;
    const clmc_series *s;
    run_control *c;
    uint64_t last; /* sweeps done at the last call */
} between_steps_context;

static clmc_status between_steps(void *context, uint64_t done)
{
    between_steps_context *b = context;
    run_control *c = b->c;
    int signal_number = clmc_interrupt_signal();
    bool due = c->plan.every_sweeps ? done / c->plan.every_sweeps > b->last / c->plan.every_sweeps
                                    : c->plan.every_seconds > 0 && now_seconds() - c->plan.last_written >= c->plan.every_seconds;
    b->last = done;
    if (clmc_ranks_many()) { /* multicanonical walkers: every rank calls at the same sweeps */
        uint64_t agreed[2] = {(uint64_t)signal_number, due};
        clmc_ranks_max(agreed, 2);
        signal_number = (int)agreed[0];
        due = agreed[1] != 0;
    }
    if (!due && !signal_number) return CLMC_OK;
    if (b->m->ops->save_state) CLMC_TRY(write_checkpoint(b->m, b->preset, b->s, 0, c));
    return signal_number ? interrupted(b->m, signal_number, done, c) : CLMC_OK;
}

/* The first multiple of n after t. */
static uint64_t next_multiple(uint64_t t, uint64_t n)
{
    return (t / n + 1) * n;
}

/* Sweeps from sweep t that a model with many sweeps per call (ops->sweeps)
 * makes at once: up to the next sweep after which the host acts (a
 * measurement, a tempering exchange, a checkpoint every N sweeps, the
 * progress and the queue's finish every FINISH_EVERY_SWEEPS, the ranks'
 * agreement on signals, the end).  Signals and checkpoints by time are seen
 * at the block's end. */
static uint64_t block_sweeps(const model_instance *m, const clmc_run_settings *run, const run_control *c, uint64_t t,
                             uint64_t total)
{
    if (!m->ops->sweeps) return 1;
    uint64_t end = next_multiple(t, FINISH_EVERY_SWEEPS), every = run->measure_every;
    uint64_t measured = t < run->thermalization ? run->thermalization + every
                                                : run->thermalization + next_multiple(t - run->thermalization, every);
    if (measured < end) end = measured;
    if (m->ensemble.map.exchange_every && next_multiple(t, m->ensemble.map.exchange_every) < end)
        end = next_multiple(t, m->ensemble.map.exchange_every);
    if (c->plan.every_sweeps && next_multiple(t, c->plan.every_sweeps) < end) end = next_multiple(t, c->plan.every_sweeps);
    if (clmc_ranks_many() && next_multiple(t, AGREE_EVERY_SWEEPS) < end) end = next_multiple(t, AGREE_EVERY_SWEEPS);
    if (total < end) end = total;
    return end - t;
}

static clmc_status run_sweeps(model_instance *m, const clmc_preset *preset, clmc_series *s, progress *p,
                              run_control *c)
{
    const clmc_run_settings *run = clmc_preset_run(preset);
    uint64_t thermalization = run->thermalization, every = run->measure_every;
    p->total = thermalization + run->sweeps;
    unsigned pending = 0;
    CLMC_TRY(clmc_ensemble_start(&m->ensemble)); /* fresh or restored */
    between_steps_context between = {.m = m, .preset = preset, .s = s, .c = c};
    m->ensemble.between_steps = between_steps;
    m->ensemble.between_context = &between;
    bool ran;
    CLMC_TRY(clmc_ensemble_run(&m->ensemble, &ran)); /* a kind with its own loop */
    if (ran) return CLMC_OK;
    for (uint64_t t = p->first; t < p->total; t++) {
        /* The checks below have nothing to do before the block's last sweep;
         * the map noted before the block is the one at its end (exchanges
         * follow it), and the model may measure in its last launch. */
        uint64_t block = block_sweeps(m, run, c, t, p->total), last = t + block - 1;
        bool measure = last >= thermalization && (last - thermalization + 1) % every == 0, measured = false;
        if (measure) {
            clmc_series_note(s, pending, last + 1, &m->ensemble.map);
            CLMC_TRY(clmc_ensemble_note(&m->ensemble, pending));
        }
        if (m->ops->sweeps) CLMC_TRY(clmc_ensemble_sweeps(&m->ensemble, t, block, measure ? (int)pending : -1, &measured));
        else CLMC_TRY(clmc_ensemble_sweep(&m->ensemble, t));
        t = last;
        if (measure && !measured) CLMC_TRY(m->ops->measure(m->state, pending));
        pending += measure;
        if (pending == m->shape.measure_batch) {
            CLMC_TRY(collect_checked(m, s, pending, t + 1, c));
            pending = 0;
        }
        CLMC_TRY(clmc_ensemble_after_sweep(&m->ensemble, t));
        if ((t + 1) % FINISH_EVERY_SWEEPS == 0) {
            CLMC_TRY(clmc_runtime_finish(m->rt, NULL));
            progress_report(p, t + 1, false);
        }
        int signal_number = 0;
        if (stop_or_checkpoint(c, t + 1, p->total, &signal_number)) {
            CLMC_TRY(collect_checked(m, s, pending, t + 1, c));
            pending = 0;
            if (m->ops->save_state) CLMC_TRY(write_checkpoint(m, preset, s, t + 1, c));
            if (signal_number) return interrupted(m, signal_number, t + 1, c);
        }
    }
    CLMC_TRY(collect_checked(m, s, pending, p->total, c));
    return clmc_ensemble_sync(&m->ensemble);
}

/* seconds: device time of the update kernels (profiling events on a sample
 * of the launches, clmc_runtime_finish; update_launches and timed_launches
 * say how many); wall_seconds: the whole sweep loop (measurements, exchanges
 * and host work included); phases: the parts of the update a model named
 * (clmc_runtime_set_phase). */
static cJSON *performance_json(const clmc_runtime *rt, double updates, double seconds, double wall_seconds)
{
    cJSON *perf = cJSON_CreateObject();
    cJSON_AddNumberToObject(perf, "updates", updates);
    cJSON_AddNumberToObject(perf, "seconds", seconds);
    cJSON_AddNumberToObject(perf, "ns_per_update", updates > 0 ? seconds * 1e9 / updates : 0);
    cJSON_AddNumberToObject(perf, "wall_seconds", wall_seconds);
    double launches, timed;
    clmc_runtime_update_launches(rt, &launches, &timed);
    cJSON_AddNumberToObject(perf, "update_launches", launches);
    cJSON_AddNumberToObject(perf, "timed_launches", timed);
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

/* configuration.pgm: binary grey map (P5) of the model's picture (drawn on
 * every rank of a decomposed lattice, written where `write`). */
static clmc_status write_picture(model_instance *m, const char *dir, bool write, bool from_last_rank)
{
    unsigned char *grey = NULL, *file = NULL;
    int width = 0, height = 0;
    clmc_status status = m->ops->picture(m->state, &grey, &width, &height);
    if (!write && !from_last_rank) {
        free(grey);
        return status;
    }
    char header[64];
    int n = snprintf(header, sizeof header, "P5\n%d %d\n255\n", width, height);
    size_t bytes = (size_t)n + (size_t)width * (size_t)height;
    if (status == CLMC_OK && !(file = malloc(bytes))) status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK) {
        memcpy(file, header, (size_t)n);
        memcpy(file + n, grey, bytes - (size_t)n);
    }
    if (from_last_rank) { /* collective */
        clmc_status passed = clmc_rank_last_bytes(&file, &bytes);
        if (status == CLMC_OK) status = passed;
    }
    if (status == CLMC_OK && write)
        status = clmc_write_file_atomic(dir, "configuration.pgm", (const char *)file, bytes);
    free(file);
    free(grey);
    return status;
}

/* What result.json and series.csv hold: one process's run, or under several
 * MPI ranks the whole run as rank 0 gathered it (the preset with the
 * run-wide copies, every rank's rows and device, the ranks' summed device
 * time and updates). */
typedef struct {
    cJSON *preset, *device, *domain; /* owned here; domain: how a decomposed lattice was cut */
    const clmc_series *series;
    const clmc_tempering *map;
    double updates, kernel_seconds, wall_seconds;
    bool write; /* false on the ranks of a decomposed lattice but rank 0 (collective checks) */
    bool last_rank_checks; /* population annealing's runs over the ranks: the checks and picture of the last run */
    clmc_h5 *h5; /* the series written so far (owned here), or NULL */
} result_view;

/* The final configuration (every system of this process) with the map
 * [system][temperature] -> configuration of the last sweep and, with
 * output.picture, the picture into result.h5. */
static clmc_status put_configuration(model_instance *m, const clmc_preset *preset, clmc_h5 *h5)
{
    clmc_array array = {0};
    clmc_status status = CLMC_OK;
    if (m->ops->snapshot && !clmc_ranks_many()) {
        status = m->ops->snapshot(m->state, &array);
        if (status == CLMC_OK) status = clmc_h5_put_array(h5, &array);
        free(array.data);
        const clmc_tempering *map = &m->ensemble.map;
        array = (clmc_array){.name = "config_at", .type = CLMC_ARRAY_UINT32, .rank = 1, .dims = {map->n_configs},
                             .data = map->config_at};
        if (status == CLMC_OK && map->config_at) status = clmc_h5_put_array(h5, &array);
    }
    /* Under several ranks the picture goes to configuration.pgm (write_results). */
    if (status != CLMC_OK || !clmc_preset_output(preset)->picture || clmc_ranks_many()) return status;
    int width = 0, height = 0;
    array = (clmc_array){.name = "picture", .type = CLMC_ARRAY_UINT8, .rank = 2};
    status = m->ops->picture(m->state, (unsigned char **)&array.data, &width, &height);
    array.dims[0] = (uint64_t)height;
    array.dims[1] = (uint64_t)width;
    if (status == CLMC_OK) status = clmc_h5_put_array(h5, &array);
    free(array.data);
    return status;
}

/* result.json and the resolved preset as text datasets of result.h5. */
static clmc_status put_metadata(clmc_h5 *h5, const cJSON *root, const char *json)
{
    CLMC_TRY(clmc_h5_put_text(h5, "result.json", json));
    char *preset_json = cJSON_Print(cJSON_GetObjectItem(root, "preset"));
    clmc_status status = preset_json ? clmc_h5_put_text(h5, "preset.json", preset_json)
                                     : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    free(preset_json);
    return status;
}

/* result.h5: the series (the rows not yet written), result.json and the
 * resolved preset as text, the configuration; renamed into place whole. */
static clmc_status write_h5(model_instance *m, result_view *v, const clmc_preset *preset, const char *dir,
                            const cJSON *root, const char *json)
{
    clmc_h5 *h5 = v->h5;
    v->h5 = NULL;
    clmc_status status = CLMC_OK;
    if (!h5) status = clmc_series_create_h5(v->series, v->map, m->shape.series_columns, dir, &h5);
    if (status == CLMC_OK) status = clmc_series_append_h5(v->series, v->map, h5);
    if (status == CLMC_OK) status = put_metadata(h5, root, json);
    if (status == CLMC_OK) status = put_configuration(m, preset, h5);
    if (status == CLMC_OK) return clmc_h5_finish(h5);
    clmc_h5_discard(h5);
    return status;
}

static clmc_status write_results(model_instance *m, result_view *v, const clmc_preset *preset, const char *dir)
{
    const clmc_series *s = v->series;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "clmc_version", CLMC_VERSION);
    cJSON_AddItemToObject(root, "preset", v->preset);
    cJSON_AddItemToObject(root, "device", v->device);
    v->preset = v->device = NULL;
    cJSON_AddItemToObject(root, "options", clmc_launch_options_json(&m->launch));
    if (m->tuning) cJSON_AddItemReferenceToObject(root, "tuning", m->tuning);
    cJSON *observables = cJSON_AddObjectToObject(root, "observables");
    bool written;
    clmc_status status = clmc_ensemble_results(&m->ensemble, observables, &written);
    if (status == CLMC_OK && !written) status = clmc_series_estimate(s, v->map, m->ops, m->state, observables);
    cJSON_AddNumberToObject(observables, "measurements", (double)s->n_rows);
    cJSON *performance = performance_json(m->rt, v->updates, v->kernel_seconds, v->wall_seconds);
    if (m->startup) cJSON_AddItemToObject(performance, "startup", startup_json(m->startup));
    if (clmc_ranks_many()) cJSON_AddNumberToObject(performance, "ranks", clmc_ranks()->size);
    if (v->domain) cJSON_AddItemToObject(performance, "domain", v->domain);
    if (m->ops->describe_update) m->ops->describe_update(m->state, performance);
    clmc_ensemble_describe(&m->ensemble, performance);
    v->domain = NULL;
    cJSON_AddItemToObject(root, "performance", performance);
    cJSON *checks = cJSON_AddObjectToObject(root, "checks");
    if (status == CLMC_OK) status = m->ops->checks(m->state, checks);
    if (v->last_rank_checks) { /* collective */
        cJSON *mine = cJSON_DetachItemViaPointer(root, checks);
        if (status != CLMC_OK) cJSON_Delete(mine), mine = NULL;
        clmc_status passed = clmc_rank_last_json(&mine);
        if (status == CLMC_OK) status = passed;
        cJSON_AddItemToObject(root, "checks", mine ? mine : cJSON_CreateObject());
        status = clmc_ranks_agree(status); /* the picture below is collective too */
    }
    bool hdf5 = clmc_preset_output(preset)->hdf5;
    char *json = status == CLMC_OK ? cJSON_Print(root) : NULL;
    char *csv = status == CLMC_OK && !hdf5 ? clmc_series_text(s, v->map, m->shape.series_columns) : NULL;
    if (status == CLMC_OK && (!json || (!csv && !hdf5))) status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    /* Under several ranks the picture is collective (a decomposed lattice) and
     * goes to configuration.pgm, also with hdf5. */
    bool picture_file = clmc_preset_output(preset)->picture && (!hdf5 || clmc_ranks_many());
    if (status == CLMC_OK && picture_file) status = write_picture(m, dir, v->write, v->last_rank_checks);
    if (status == CLMC_OK && hdf5 && v->write) status = write_h5(m, v, preset, dir, root, json);
    if (status == CLMC_OK && !hdf5 && v->write) status = clmc_write_file_atomic(dir, "series.csv", csv, strlen(csv));
    /* An earlier run's series in the other format would contradict this one. */
    if (status == CLMC_OK && v->write) status = clmc_remove_file(dir, hdf5 ? "series.csv" : "result.h5");
    if (status == CLMC_OK && v->write) {
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
    const clmc_tempering *map = &m->ensemble.map;
    if (!map->share_count) return clmc_series_init(s, (size_t)n, &m->shape, m->n_columns);
    clmc_model_shape run = m->shape; /* tempering across ranks: the whole run's series on every rank */
    run.n_temperatures = map->n_temperatures;
    CLMC_TRY(clmc_series_init(s, (size_t)n, &run, m->n_columns));
    return clmc_series_share(s, map->share_first, map->share_count, m->shape.measure_batch);
}

/* Continues from a checkpoint (clmc_checkpoint_check passed): its state
 * replaces the fresh one. */
static clmc_status resume_from(model_instance *m, const clmc_preset *preset, const clmc_checkpoint *checkpoint,
                               clmc_series *s, progress *p)
{
    uint64_t total = clmc_preset_run(preset)->thermalization + clmc_preset_run(preset)->sweeps;
    CLMC_TRY(clmc_checkpoint_restore(checkpoint, m->ops, m->state, &m->ensemble.map, s));
    if (checkpoint->ensemble_bytes)
        CLMC_TRY(clmc_ensemble_restore(&m->ensemble, checkpoint->ensemble_blob, checkpoint->ensemble_bytes));
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

/* A decomposed lattice (collective): every rank holds the whole series (its
 * measurements are sums over the ranks) and takes part in the checks and
 * the picture; rank 0 writes.  Population annealing the same: every rank
 * holds the run's step records, and the checks may continue over the ranks'
 * members (Ising's configuration hash). */
static clmc_status finish_domain(model_instance *m, result_view *v, const clmc_preset *preset,
                                 const clmc_preset *global)
{
    double sums[2] = {v->updates, v->kernel_seconds};
    clmc_ranks_sum(sums, 2);
    v->updates = sums[0];
    v->kernel_seconds = sums[1];
    cJSON *devices = clmc_rank_devices_json(clmc_runtime_device(m->rt));
    v->preset = clmc_rank_result_preset(preset, global);
    v->device = clmc_device_json(clmc_runtime_device(m->rt));
    if (devices) cJSON_AddItemToObject(v->device, "ranks", devices);
    clmc_status status = CLMC_OK;
    if (clmc_rank_domain(global)) {
        v->domain = cJSON_CreateObject();
        status = m->ops->domain(global, clmc_ranks()->size, v->domain);
    }
    v->write = clmc_ranks()->rank == 0;
    v->last_rank_checks = clmc_preset_population_runs(global);
    if (status == CLMC_OK) status = write_results(m, v, preset, clmc_preset_output(global)->dir);
    cJSON_Delete(v->domain);
    cJSON_Delete(v->preset);
    cJSON_Delete(v->device);
    return clmc_ranks_agree(status);
}

/* Parallel tempering of one system across the ranks (collective): every
 * rank holds the whole series and map; the checks continue from rank to
 * rank; rank 0 writes, with the run's preset. */
static clmc_status finish_temperatures(model_instance *m, result_view *v, const clmc_preset *global)
{
    double sums[2] = {v->updates, v->kernel_seconds};
    clmc_ranks_sum(sums, 2);
    v->updates = sums[0];
    v->kernel_seconds = sums[1];
    cJSON *devices = clmc_rank_devices_json(clmc_runtime_device(m->rt));
    v->preset = cJSON_Duplicate(clmc_preset_tree(global), true);
    v->device = clmc_device_json(clmc_runtime_device(m->rt));
    if (devices) cJSON_AddItemToObject(v->device, "ranks", devices);
    v->write = clmc_ranks()->rank == 0;
    clmc_status status = write_results(m, v, global, clmc_preset_output(global)->dir);
    cJSON_Delete(v->preset);
    cJSON_Delete(v->device);
    return clmc_ranks_agree(status);
}

/* The results of this process's run, or under several ranks of the whole
 * run, gathered and written by rank 0 (collective). */
static clmc_status finish_results(model_instance *m, const clmc_preset *preset, const clmc_preset *global,
                                  const clmc_series *s, clmc_h5 *h5, double kernel_seconds, double wall_seconds)
{
    const clmc_run_settings *run = clmc_preset_run(preset);
    result_view v = {.series = s, .map = &m->ensemble.map, .h5 = h5, .kernel_seconds = kernel_seconds,
                     .wall_seconds = wall_seconds, .write = true,
                     .updates = m->shape.updates_per_sweep * (double)(run->thermalization + run->sweeps)};
    if (!global) {
        v.preset = cJSON_Duplicate(clmc_preset_tree(preset), true);
        v.device = clmc_device_json(clmc_runtime_device(m->rt));
        clmc_status status = write_results(m, &v, preset, clmc_preset_output(preset)->dir);
        clmc_h5_discard(v.h5); /* not reached by write_results (a failure before it) */
        return status;
    }
    if (clmc_rank_domain(global) || clmc_preset_is_population(global)) return finish_domain(m, &v, preset, global);
    if (m->ensemble.map.share_count) return finish_temperatures(m, &v, global);
    clmc_series all = {0};
    clmc_tempering map = m->ensemble.map;
    double sums[3] = {v.updates, kernel_seconds, (double)map.n_systems};
    clmc_ranks_sum(sums, 3);
    cJSON *devices = clmc_rank_devices_json(clmc_runtime_device(m->rt));
    clmc_status status = clmc_series_gather(s, &all);
    unsigned *config_at = NULL;
    uint64_t *counts = NULL;
    map.n_configs = (unsigned)all.n_configs;
    if (status == CLMC_OK) status = clmc_tempering_gather(&m->ensemble.map, &map, &config_at, &counts);
    if (status == CLMC_OK && clmc_ranks()->rank == 0) {
        map.n_systems = (unsigned)sums[2];
        map.first_system = clmc_preset_systems(global)->first_system;
        v.series = &all;
        v.map = &map;
        v.updates = sums[0];
        v.kernel_seconds = sums[1];
        v.preset = clmc_rank_result_preset(preset, global);
        v.device = clmc_device_json(clmc_runtime_device(m->rt));
        cJSON_AddItemToObject(v.device, "ranks", devices);
        devices = NULL;
        status = write_results(m, &v, preset, clmc_preset_output(global)->dir);
    }
    cJSON_Delete(devices);
    clmc_series_free(&all);
    free(config_at);
    free(counts);
    return clmc_ranks_agree(status);
}

/* Runs the sweeps of `preset` (this rank's part of `global` under several
 * MPI ranks, else global is NULL).  Every rank passes the same collective
 * steps; a failure inside the sweep loop of one rank ends them all. */
static clmc_status run_instance(model_instance *m, clmc_preset *preset, const clmc_run_options *options,
                                const clmc_checkpoint *checkpoint, output_claim *claim, const clmc_preset *global)
{
    run_control control = {.dir = clmc_preset_output(preset)->dir};
    control.resume_dir = global ? clmc_preset_output(global)->dir : control.dir;
    clmc_series s = {0};
    progress p = {.quiet = (options && options->quiet) || clmc_ranks()->rank != 0, .started = now_seconds()};
    clmc_status status = clmc_checkpoint_plan_read(preset, m->ops, &control.plan);
    if (status == CLMC_OK) status = clmc_fault_after("CLMC_FAULT_COMMIT_AFTER", NULL, &control.fault_commit_after, NULL);
    if (status == CLMC_OK && checkpoint) control.generation = checkpoint->generation;
    if (status == CLMC_OK) status = clmc_make_directory(control.dir);
    if (status == CLMC_OK) status = claim_output(claim);
    if (status == CLMC_OK) status = allocate_series(m, preset, &s);
    if (status == CLMC_OK && checkpoint) status = resume_from(m, preset, checkpoint, &s, &p);
    if (status == CLMC_OK && !global && clmc_preset_output(preset)->hdf5) /* a resumed run's rows first */
        status = clmc_series_create_h5(&s, &m->ensemble.map, m->shape.series_columns, control.dir, &control.h5);
    if (status == CLMC_OK && control.h5) status = clmc_series_append_h5(&s, &m->ensemble.map, control.h5);
    status = clmc_ranks_agree(status);
    control.plan.last_written = now_seconds();
    double kernel_seconds = 0;
    startup_end(m, "output");
    clmc_runtime_reset_clock(m->rt);
    if (status == CLMC_OK) {
        status = run_sweeps(m, preset, &s, &p, &control);
        clmc_runtime_profile_sweeps(m->rt, p.total - p.first);
        if (status == CLMC_OK) status = clmc_runtime_finish(m->rt, &kernel_seconds);
        if (status != CLMC_OK && clmc_ranks_many() && !control.interrupted) clmc_ranks_abort(status);
        status = clmc_ranks_agree(status);
    }
    double wall_seconds = now_seconds() - p.started;
    if (status == CLMC_OK) progress_report(&p, p.total, true);
    if (status == CLMC_OK) {
        status = finish_results(m, preset, global, &s, control.h5, kernel_seconds, wall_seconds);
        control.h5 = NULL;
    }
    clmc_h5_discard(control.h5);
    clmc_series_free(&s);
    return status;
}

/* ensemble.type "multicanonical": the ensemble runs the whole simulation
 * (src/ensembles/multicanonical.c); result.json as for other runs, with
 * density_of_states and reweighted observables, no series. */
static clmc_status run_density(model_instance *m, const clmc_preset *preset, const clmc_run_options *options,
                               output_claim *claim, const clmc_checkpoint *checkpoint, const clmc_preset *global)
{
    /* Under several MPI ranks each rank checkpoints in its own folder (the
     * preset's output.dir, OUT/rank-R) and rank 0 writes the result into
     * global's OUT, with the run-wide preset (clmc_rank_result_preset). */
    const char *dir = clmc_preset_output(preset)->dir;
    const clmc_preset *run_preset = global ? global : preset;
    const char *result_dir = clmc_preset_output(run_preset)->dir;
    bool writes = clmc_ranks()->rank == 0;
    /* Checkpoints between the walkers' launches: the engine's series stays
     * empty (next_sweep 0), the kind's blob holds the run. */
    run_control control = {.dir = dir, .resume_dir = result_dir, .generation = checkpoint ? checkpoint->generation : 0};
    clmc_series empty = {.n_configs = 1, .n_columns = 1}; /* no rows; the format wants a row width */
    between_steps_context between = {.m = m, .preset = preset, .s = &empty, .c = &control};
    clmc_status status = clmc_checkpoint_plan_read(preset, m->ops, &control.plan);
    if (status == CLMC_OK && checkpoint && !checkpoint->ensemble_bytes)
        status = clmc_fail(CLMC_ERR_INPUT, "checkpoint: holds no multicanonical state (section ENSM)");
    if (status == CLMC_OK) status = clmc_multicanonical_check(&m->ensemble);
    if (status == CLMC_OK) status = clmc_make_directory(dir);
    if (status == CLMC_OK) status = claim_output(claim);
    CLMC_TRY(clmc_ranks_agree(status));
    m->ensemble.between_steps = between_steps;
    m->ensemble.between_context = &between;
    control.plan.last_written = now_seconds();
    cJSON *root = cJSON_CreateObject();
    if (!root) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    cJSON_AddStringToObject(root, "clmc_version", CLMC_VERSION);
    cJSON_AddItemToObject(root, "preset", global ? clmc_rank_result_preset(preset, global)
                                                 : cJSON_Duplicate(clmc_preset_tree(preset), true));
    cJSON *device = clmc_device_json(clmc_runtime_device(m->rt));
    cJSON_AddItemToObject(root, "device", device);
    cJSON_AddItemToObject(root, "options", clmc_launch_options_json(&m->launch));
    startup_end(m, "output");
    double started = now_seconds(), kernel_seconds = 0, updates = 0;
    clmc_runtime_reset_clock(m->rt);
    bool quiet = (options && options->quiet) || !writes, walkers_started = false;
    status = clmc_multicanonical_run(&m->ensemble, preset, quiet, root, &updates,
                                     checkpoint ? checkpoint->ensemble_blob : NULL,
                                     checkpoint ? checkpoint->ensemble_bytes : 0, &walkers_started);
    if (status == CLMC_OK) status = clmc_runtime_finish(m->rt, &kernel_seconds);
    /* Refusals before the walkers start are agreed inside the run; a failure
     * later on one rank ends them all; a signal stops them together. */
    if (status != CLMC_OK && clmc_ranks_many() && walkers_started && !control.interrupted) clmc_ranks_abort(status);
    if (status != CLMC_OK) {
        cJSON_Delete(root);
        return status;
    }
    if (clmc_ranks_many()) { /* collective */
        clmc_ranks_sum(&kernel_seconds, 1);
        cJSON *devices = clmc_rank_devices_json(clmc_runtime_device(m->rt));
        if (devices) cJSON_AddItemToObject(device, "ranks", devices);
    }
    cJSON *performance = performance_json(m->rt, updates, kernel_seconds, now_seconds() - started);
    if (m->startup) cJSON_AddItemToObject(performance, "startup", startup_json(m->startup));
    if (clmc_ranks_many()) cJSON_AddNumberToObject(performance, "ranks", clmc_ranks()->size);
    cJSON_AddItemToObject(root, "performance", performance);
    char *json = writes ? cJSON_Print(root) : NULL;
    if (writes && !json) status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK && writes && clmc_preset_output(preset)->hdf5) { /* no series: the metadata alone */
        clmc_h5 *h5 = NULL;
        status = clmc_h5_create(result_dir, NULL, NULL, 0, &h5);
        if (status == CLMC_OK) status = put_metadata(h5, root, json);
        if (status == CLMC_OK) status = clmc_h5_finish(h5);
        else clmc_h5_discard(h5);
    }
    if (status == CLMC_OK && writes) {
        size_t n = strlen(json);
        json[n] = '\n';
        status = clmc_write_file_atomic(result_dir, "result.json", json, n + 1);
    }
    free(json);
    cJSON_Delete(root);
    return clmc_ranks_agree(status);
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

static clmc_status select_device(const clmc_run_options *options, clmc_device_info *device)
{
    const char *selector = options ? options->device : NULL;
    return clmc_ranks_many() ? clmc_rank_device(selector, device) : clmc_device_select(selector, device);
}

/* Under several MPI ranks: this rank's preset; rank 0 claims the run's folder
 * (refusing an earlier single-process checkpoint there as clmc_run does) and
 * records the ranks (distribute.h) before any rank writes below it. */
static clmc_status start_ranks(const clmc_preset *global, output_claim *top, clmc_preset **local)
{
    clmc_status status = clmc_rank_preset(global, local);
    if (status == CLMC_OK && clmc_ranks()->rank == 0) {
        status = clmc_make_directory(top->dir);
        if (status == CLMC_OK) status = claim_output(top);
        if (status == CLMC_OK) status = clmc_ranks_record(top->dir, global);
    }
    return clmc_ranks_agree(status);
}

clmc_status clmc_run(clmc_preset *preset, const clmc_run_options *options)
{
    startup_clock startup = startup_begin(options);
    startup_mark(&startup, "preset", NULL);
    bool overwrite = options && options->overwrite;
    output_claim top = {.dir = clmc_preset_output(preset)->dir, .lock = -1, .fresh = true, .overwrite = overwrite};
    clmc_preset *local = NULL;
    clmc_status status = clmc_ranks_many() ? start_ranks(preset, &top, &local) : CLMC_OK;
    clmc_preset *own = local ? local : preset;
    output_claim claim = {.dir = clmc_preset_output(own)->dir, .lock = -1, .fresh = true, .overwrite = overwrite};
    clmc_device_info device;
    model_instance m;
    memset(&m, 0, sizeof m);
    if (status == CLMC_OK) status = select_device(options, &device);
    startup_mark(&startup, "device", NULL);
    if (status == CLMC_OK) status = claim_existing_output(&claim);
    if (status == CLMC_OK)
        status = instance_open(own, local ? preset : NULL, &device, options ? &options->launch : NULL, &startup, &m);
    status = clmc_ranks_agree(status);
    if (status == CLMC_OK && !(options && options->quiet) && clmc_ranks()->rank == 0) print_tuning(m.tuning);
    if (status == CLMC_OK && m.ensemble.kind == &clmc_ensemble_multicanonical)
        status = run_density(&m, own, options, &claim, NULL, local ? preset : NULL);
    else if (status == CLMC_OK) status = run_instance(&m, own, options, NULL, &claim, local ? preset : NULL);
    instance_close(&m);
    release_output(&claim);
    release_output(&top);
    clmc_preset_free(local);
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

/* Under several MPI ranks: rank 0 locks the run's folder; every rank reads
 * the run's preset and rank count from it (distribute.h). */
static clmc_status resume_ranks(const char *dir, output_claim *top, clmc_preset **global)
{
    clmc_status status = clmc_ranks()->rank == 0 ? claim_existing_output(top) : CLMC_OK;
    if (status == CLMC_OK) status = clmc_ranks_recorded_preset(dir, global);
    return clmc_ranks_agree(status);
}

/* Under several MPI ranks (collective): the newest checkpoint generation
 * every rank holds (a rank killed between the two phases of a checkpoint
 * leaves the others one generation ahead). */
static clmc_status read_agreed(const char *dir, clmc_checkpoint *checkpoint, bool *have)
{
    bool dropped = false;
    clmc_status status = clmc_checkpoint_read_agreed(dir, checkpoint, &dropped);
    *have = status == CLMC_OK;
    status = clmc_ranks_agree(status);
    if (status == CLMC_OK && dropped && clmc_ranks()->rank == 0)
        fprintf(stderr, "clmc: resuming from checkpoint generation %llu, the newest every rank committed (a newer one "
                "was not committed on every rank)\n", (unsigned long long)checkpoint->generation);
    return status;
}

/* All ranks' checkpoints must continue from one sweep (those of one
 * generation do; files put there by hand may not). */
static clmc_status check_same_sweep(const clmc_checkpoint *checkpoint, clmc_status status)
{
    uint64_t sweeps[2] = {status == CLMC_OK ? checkpoint->next_sweep : 0,
                          status == CLMC_OK ? ~checkpoint->next_sweep : 0};
    clmc_ranks_max(sweeps, 2);
    if (status == CLMC_OK && sweeps[0] != ~sweeps[1])
        return clmc_fail(CLMC_ERR_INPUT, "the ranks' checkpoints of one generation continue from different sweeps "
                         "(%llu ... %llu): not the checkpoints of one run; it cannot be resumed consistently",
                         (unsigned long long)~sweeps[1], (unsigned long long)sweeps[0]);
    return status;
}

/* The checkpoint is read and checked under the directory's lock, before
 * anything in the directory is written.  Under several MPI ranks each rank
 * resumes from its own folder DIR/rank-R. */
clmc_status clmc_resume(const char *dir, const clmc_run_options *options)
{
    startup_clock startup = startup_begin(options);
    startup_mark(&startup, "preset", NULL);
    output_claim top = {.dir = dir, .lock = -1};
    clmc_preset *global = NULL, *preset = NULL;
    char rank_dir[4200];
    snprintf(rank_dir, sizeof rank_dir, "%s/rank-%d", dir, clmc_ranks()->rank);
    clmc_status status = clmc_ranks_many() ? resume_ranks(dir, &top, &global) : CLMC_OK;
    bool ranks_ready = clmc_ranks_many() && status == CLMC_OK; /* agreed: alike on every rank */
    const char *own_dir = global ? rank_dir : dir;
    output_claim claim = {.dir = own_dir, .lock = -1};
    clmc_checkpoint checkpoint;
    memset(&checkpoint, 0, sizeof checkpoint);
    bool have_checkpoint = false;
    if (status == CLMC_OK) status = claim_existing_output(&claim);
    if (status == CLMC_OK && !global) status = clmc_ranks_unrecorded(dir);
    if (status == CLMC_OK && !global) have_checkpoint = (status = clmc_checkpoint_read(own_dir, &checkpoint)) == CLMC_OK;
    if (ranks_ready) { /* collective: every rank takes part, whatever its own status */
        clmc_status read = read_agreed(own_dir, &checkpoint, &have_checkpoint);
        if (status == CLMC_OK) status = read;
    }
    if (status == CLMC_OK) status = checkpoint_preset(&checkpoint, own_dir, &preset);
    if (status == CLMC_OK && global && clmc_preset_is_population(preset)) clmc_rank_population_share(global, preset);
    if (status == CLMC_OK) status = clmc_checkpoint_check(own_dir, &checkpoint, clmc_preset_run(preset));
    if (clmc_ranks_many()) status = check_same_sweep(&checkpoint, status);
    startup_mark(&startup, "checkpoint", NULL);
    clmc_device_info device;
    model_instance m;
    memset(&m, 0, sizeof m);
    if (status == CLMC_OK) status = select_device(options, &device);
    startup_mark(&startup, "device", NULL);
    if (status == CLMC_OK)
        status = instance_open(preset, global, &device, options ? &options->launch : NULL, &startup, &m);
    status = clmc_ranks_agree(status);
    if (status == CLMC_OK && m.ensemble.kind == &clmc_ensemble_multicanonical)
        status = run_density(&m, preset, options, &claim, &checkpoint, global);
    else if (status == CLMC_OK) status = run_instance(&m, preset, options, &checkpoint, &claim, global);
    instance_close(&m);
    release_output(&claim);
    release_output(&top);
    clmc_preset_free(preset);
    clmc_preset_free(global);
    if (have_checkpoint) clmc_checkpoint_free(&checkpoint);
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
    clmc_runtime_time_every_launch(m->rt, true); /* a benchmark times every update launch */
    for (int warm_up = 0; warm_up < 2; warm_up++) CLMC_TRY(m->ops->sweep(m->state, sweep++));
    CLMC_TRY(clmc_runtime_finish(m->rt, NULL));
    double updates = m->shape.updates_per_sweep * (double)per_repetition, phase_seconds[CLMC_MAX_PHASES];
    for (int r = 0; r < repetitions; r++) {
        clmc_runtime_reset_clock(m->rt);
        for (uint64_t done = 0; done < per_repetition;) { /* in the run loop's blocks where the model takes them */
            uint64_t block = m->ops->sweeps ? per_repetition - done : 1;
            if (block > FINISH_EVERY_SWEEPS) block = FINISH_EVERY_SWEEPS;
            bool measured;
            CLMC_TRY(block > 1 ? m->ops->sweeps(m->state, sweep, block, -1, &measured) : m->ops->sweep(m->state, sweep));
            sweep += block;
            done += block;
        }
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
    clmc_status status = ns ? instance_open(preset, NULL, device, launch, NULL, &m)
                            : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK && m.ensemble.kind == &clmc_ensemble_multicanonical)
        status = clmc_fail(CLMC_ERR_INPUT, "ensemble.type: clmc bench times canonical sweeps; a multicanonical or "
                           "Wang-Landau run reports its own timing (result.json density_of_states.timing, "
                           "benchmarks/muca_scan.sh)");
    if (status == CLMC_OK) e->resolved_preset = clmc_preset_to_json(preset);
    if (status == CLMC_OK) status = time_repetitions(&m, preset, e->repetitions, ns, e);
    if (status == CLMC_OK) summarise_bench(&m, ns, e);
    if (status == CLMC_OK) status = clmc_measure_copy_bandwidth(m.rt, &e->copy_bytes_per_second);
    if (ns) instance_close(&m);
    free(ns);
    e->status = status;
    if (status != CLMC_OK) snprintf(e->reason, sizeof e->reason, "%s", clmc_error_message());
}

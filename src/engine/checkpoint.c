/* Saving a run's state into DIR/checkpoint.clmc and putting it back: the
 * plan (run.checkpoint_every), the file rotation, the consistency and
 * restore checks, and the output directory's lock and stale checkpoints. */
#define _DEFAULT_SOURCE /* flock (BSD; glibc hides it under _POSIX_C_SOURCE alone) */
#include "engine/checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/results.h"
#include "runtime/ranks.h"

clmc_status clmc_checkpoint_plan_read(const clmc_preset *preset, const clmc_model_ops *ops, clmc_checkpoint_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->every_sweeps = clmc_preset_run(preset)->checkpoint_every_sweeps;
    plan->every_seconds = clmc_preset_run(preset)->checkpoint_every_seconds;
    bool wanted = plan->every_sweeps || plan->every_seconds > 0;
    if (wanted && (!ops->save_state || !ops->load_state))
        return clmc_fail(CLMC_ERR_INPUT, "run.checkpoint_every: model \"%s\" cannot checkpoint yet; remove the key "
                         "(or give 0)", ops->type);
    return CLMC_OK;
}

/* ---- Saving -------------------------------------------------------------- */

static clmc_status fsync_directory(const char *dir)
{
    int fd = open(dir, O_RDONLY);
    if (fd < 0) return clmc_fail(CLMC_ERR_OTHER, "cannot open %s: %s", dir, strerror(errno));
    fsync(fd); /* some file systems refuse fsync on directories; the renames are done either way */
    close(fd);
    return CLMC_OK;
}

/* DIR/.checkpoint.new is complete and synced: the current checkpoint becomes
 * checkpoint.prev by a hard link (so checkpoint.clmc never disappears), then
 * the new one replaces checkpoint.clmc by rename. */
static clmc_status rotate(const char *dir)
{
    char current[4200], previous[4200], fresh[4200];
    snprintf(current, sizeof current, "%s/%s", dir, CLMC_CHECKPOINT_FILE);
    snprintf(previous, sizeof previous, "%s/%s", dir, CLMC_CHECKPOINT_PREVIOUS);
    snprintf(fresh, sizeof fresh, "%s/.checkpoint.new", dir);
    if (access(current, F_OK) == 0) {
        if (unlink(previous) != 0 && errno != ENOENT)
            return clmc_fail(CLMC_ERR_OTHER, "cannot remove %s: %s", previous, strerror(errno));
        if (link(current, previous) != 0)
            return clmc_fail(CLMC_ERR_OTHER, "cannot keep %s as %s: %s", current, previous, strerror(errno));
    }
    if (rename(fresh, current) != 0)
        return clmc_fail(CLMC_ERR_OTHER, "cannot write %s: %s", current, strerror(errno));
    return fsync_directory(dir);
}

static void describe_tempering(const clmc_tempering *pt, clmc_checkpoint *c)
{
    c->n_configs = pt->n_configs;
    c->n_temperatures = pt->n_temperatures;
    c->config_at = pt->config_at;
    c->heading = pt->heading;
    c->accepted = pt->accepted;
    c->attempted = pt->attempted;
    c->round_trips = pt->round_trips;
    c->exchanges = pt->exchanges;
}

clmc_status clmc_checkpoint_prepare(const char *dir, const clmc_preset *preset, const clmc_model_ops *ops,
                                    void *state, const clmc_tempering *pt, const clmc_series *s,
                                    uint64_t next_sweep, uint64_t generation, const clmc_device_info *device,
                                    const unsigned char *ensemble_blob, size_t ensemble_bytes)
{
    if (!ops->save_state) return clmc_fail(CLMC_ERR_OTHER, "model \"%s\" cannot checkpoint yet", ops->type);
    /* The checkpoint only borrows these arrays: it is encoded, never freed. */
    clmc_checkpoint c = {.engine_version = CLMC_VERSION, .device_name = (char *)device->name,
                         .next_sweep = next_sweep, .n_rows = s->n_rows, .row_values = s->n_configs * s->n_columns,
                         .sweeps = s->sweeps, .rows = s->rows, .ensemble_blob = (unsigned char *)ensemble_blob,
                         .ensemble_bytes = ensemble_bytes, .generation = generation};
    _Static_assert(sizeof(unsigned) == sizeof(uint32_t) && sizeof(int) == sizeof(int32_t), "32-bit maps");
    describe_tempering(pt, &c);
    c.preset_json = clmc_preset_to_json(preset);
    size_t model_bytes = 0, length = 0;
    unsigned char *bytes = NULL;
    clmc_status status = c.preset_json ? ops->save_state(state, &c.model_blob, &model_bytes)
                                       : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    c.model_bytes = model_bytes;
    if (status == CLMC_OK) status = clmc_checkpoint_encode(&c, &bytes, &length);
    if (status == CLMC_OK) status = clmc_write_file_atomic(dir, ".checkpoint.new", (const char *)bytes, length);
    free(bytes);
    free(c.model_blob);
    free(c.preset_json);
    return status;
}

clmc_status clmc_checkpoint_commit(const char *dir)
{
    return rotate(dir);
}

/* ---- Reading and restoring ----------------------------------------------- */

/* Opened without blocking and checked to be a regular file before reading:
 * a FIFO would otherwise wait for a writer forever. */
static clmc_status read_whole_file(const char *path, unsigned char **bytes, size_t *length)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return clmc_fail(CLMC_ERR_INPUT, "--resume: cannot read %s: %s", path, strerror(errno));
    struct stat st;
    FILE *f = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "rb"))) {
        close(fd);
        return clmc_fail(CLMC_ERR_INPUT, "--resume: %s is not a regular file", path);
    }
    *length = (size_t)st.st_size;
    *bytes = malloc(*length ? *length : 1);
    bool ok = *bytes && fread(*bytes, 1, *length, f) == *length;
    fclose(f);
    if (ok) return CLMC_OK;
    free(*bytes);
    *bytes = NULL;
    return clmc_fail(CLMC_ERR_INPUT, "--resume: cannot read %s", path);
}

static clmc_status read_named(const char *dir, const char *name, clmc_checkpoint *c)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unsigned char *bytes = NULL;
    size_t length = 0;
    CLMC_TRY(read_whole_file(path, &bytes, &length));
    clmc_status status = clmc_checkpoint_decode(bytes, length, c);
    free(bytes);
    if (status != CLMC_OK) {
        char reason[1024];
        snprintf(reason, sizeof reason, "%s", clmc_error_message());
        return clmc_fail(status, "%s: %s; refused, nothing was changed (an older checkpoint may be in %s/%s)", path,
                         reason, dir, CLMC_CHECKPOINT_PREVIOUS);
    }
    if (strcmp(c->engine_version, CLMC_VERSION) != 0) {
        status = clmc_fail(CLMC_ERR_INPUT, "%s: written by clmc %s; this is clmc %s, whose results would differ", path,
                           c->engine_version, CLMC_VERSION);
        clmc_checkpoint_free(c);
    }
    return status;
}

clmc_status clmc_checkpoint_read(const char *dir, clmc_checkpoint *c)
{
    return read_named(dir, CLMC_CHECKPOINT_FILE, c);
}

#define NO_GENERATION UINT64_MAX

/* The newest generation in every rank's pair of all[2 r], all[2 r + 1]. */
static uint64_t newest_common(const uint64_t *all, int ranks)
{
    uint64_t best = NO_GENERATION;
    for (int i = 0; i < 2; i++) {
        uint64_t g = all[i];
        bool everywhere = g != NO_GENERATION;
        for (int r = 1; r < ranks && everywhere; r++) everywhere = all[2 * r] == g || all[2 * r + 1] == g;
        if (everywhere && (best == NO_GENERATION || g > best)) best = g;
    }
    return best;
}

clmc_status clmc_checkpoint_read_agreed(const char *dir, clmc_checkpoint *c, bool *dropped)
{
    const clmc_ranks_info *ranks = clmc_ranks();
    clmc_checkpoint held[2];
    memset(held, 0, sizeof held);
    const char *names[2] = {CLMC_CHECKPOINT_FILE, CLMC_CHECKPOINT_PREVIOUS};
    uint64_t mine[2] = {NO_GENERATION, NO_GENERATION};
    clmc_status status = read_named(dir, names[0], &held[0]), local = status;
    char first_error[1024];
    snprintf(first_error, sizeof first_error, "%s", clmc_error_message());
    if (status == CLMC_OK) mine[0] = held[0].generation;
    if (read_named(dir, names[1], &held[1]) == CLMC_OK) mine[1] = held[1].generation;
    if (mine[1] != NO_GENERATION) local = CLMC_OK; /* the older one alone may still be the agreed one */
    uint64_t *all = malloc(2 * (size_t)ranks->size * sizeof *all);
    size_t *counts = malloc((size_t)ranks->size * sizeof *counts);
    if (!all || !counts) clmc_ranks_abort(clmc_fail(CLMC_ERR_OTHER, "out of host memory"));
    for (int r = 0; r < ranks->size; r++) counts[r] = sizeof mine;
    status = clmc_ranks_allgatherv(mine, all, counts);
    uint64_t best = newest_common(all, ranks->size), newest = 0;
    for (int k = 0; k < 2 * ranks->size; k++)
        if (all[k] != NO_GENERATION && all[k] > newest) newest = all[k];
    int pick = best == NO_GENERATION ? -1 : mine[0] == best ? 0 : 1;
    if (status == CLMC_OK && local != CLMC_OK) status = clmc_fail(local, "%s", first_error);
    else if (status == CLMC_OK && pick < 0)
        status = clmc_fail(CLMC_ERR_INPUT, "%s: the %d MPI ranks' checkpoints (checkpoint.clmc and checkpoint.prev "
                           "of every rank) hold no generation in common; the run cannot be resumed consistently",
                           dir, ranks->size);
    *dropped = status == CLMC_OK && newest > best;
    for (int i = 0; i < 2; i++)
        if (i != pick || status != CLMC_OK) clmc_checkpoint_free(&held[i]);
    if (status == CLMC_OK) *c = held[pick];
    if (status == CLMC_OK && pick == 1) { /* the newer one was not committed on every rank */
        char current[4200], previous[4200];
        snprintf(current, sizeof current, "%s/%s", dir, CLMC_CHECKPOINT_FILE);
        snprintf(previous, sizeof previous, "%s/%s", dir, CLMC_CHECKPOINT_PREVIOUS);
        if (rename(previous, current) != 0)
            status = clmc_fail(CLMC_ERR_OTHER, "cannot put %s back as %s: %s", previous, current, strerror(errno));
        if (status == CLMC_OK) status = fsync_directory(dir);
        if (status != CLMC_OK) clmc_checkpoint_free(c);
    }
    free(all);
    free(counts);
    return status;
}

/* Each system's temperatures hold its own configurations, each once (the
 * exchanges only permute them within a system). */
static const char *map_problem(const clmc_checkpoint *c)
{
    bool *seen = calloc(c->n_configs, sizeof *seen);
    if (!seen) return "cannot be checked (out of host memory)";
    const char *problem = NULL;
    for (uint32_t i = 0; i < c->n_configs && !problem; i++) {
        uint32_t config = c->config_at[i];
        if (config / c->n_temperatures != i / c->n_temperatures) problem = "moves a configuration to another system";
        else if (seen[config]) problem = "holds a configuration twice (not a permutation)";
        seen[config] = true;
    }
    free(seen);
    return problem;
}

/* What is inconsistent between the checkpoint and its run, or NULL. */
static const char *consistency_problem(const clmc_checkpoint *c, const clmc_run_settings *run, char *text, size_t n)
{
    uint64_t total = run->thermalization + run->sweeps, done = c->next_sweep, every = run->measure_every;
    if (done > total) {
        snprintf(text, n, "%llu sweeps done, more than the run's %llu", (unsigned long long)done,
                 (unsigned long long)total);
        return text;
    }
    if (every == 0) return "run.measure_every is 0";
    uint64_t rows = done > run->thermalization ? (done - run->thermalization) / every : 0;
    if (c->n_rows != rows) {
        snprintf(text, n, "%llu measurements stored, but %llu sweeps done (thermalization %llu, measure_every %llu) "
                 "make %llu", (unsigned long long)c->n_rows, (unsigned long long)done,
                 (unsigned long long)run->thermalization, (unsigned long long)every, (unsigned long long)rows);
        return text;
    }
    for (uint64_t r = 0; r < rows; r++)
        if (c->sweeps[r] != run->thermalization + (r + 1) * every) {
            snprintf(text, n, "measurement %llu is labelled sweep %llu; it was taken at sweep %llu",
                     (unsigned long long)r, (unsigned long long)c->sweeps[r],
                     (unsigned long long)(run->thermalization + (r + 1) * every));
            return text;
        }
    for (uint64_t k = 0; k < c->n_rows * c->row_values; k++)
        if (!isfinite(c->rows[k])) {
            snprintf(text, n, "measurement %llu holds the value %g (a run stops at the first value that is not "
                     "finite, so no checkpoint holds one)", (unsigned long long)(k / c->row_values), c->rows[k]);
            return text;
        }
    const char *map = map_problem(c);
    if (map) snprintf(text, n, "the tempering map %s", map);
    return map ? text : NULL;
}

clmc_status clmc_checkpoint_check(const char *dir, const clmc_checkpoint *c, const clmc_run_settings *run)
{
    char text[512];
    const char *problem = consistency_problem(c, run, text, sizeof text);
    if (!problem) return CLMC_OK;
    return clmc_fail(CLMC_ERR_INPUT, "%s/%s: %s; refused, nothing was changed", dir, CLMC_CHECKPOINT_FILE, problem);
}

static clmc_status restore_tempering(const clmc_checkpoint *c, clmc_tempering *pt)
{
    if (c->n_configs != pt->n_configs || c->n_temperatures != pt->n_temperatures)
        return clmc_fail(CLMC_ERR_INPUT, "checkpoint: %u configurations at %u temperatures; the preset makes %u at %u",
                         c->n_configs, c->n_temperatures, pt->n_configs, pt->n_temperatures);
    for (uint32_t i = 0; i < c->n_configs; i++) {
        pt->config_at[i] = c->config_at[i];
        pt->heading[i] = c->heading[i];
    }
    for (uint32_t t = 0; t < c->n_temperatures; t++) {
        pt->accepted[t] = c->accepted[t];
        pt->attempted[t] = c->attempted[t];
    }
    pt->round_trips = c->round_trips;
    pt->exchanges = c->exchanges;
    return CLMC_OK;
}

static clmc_status restore_series(const clmc_checkpoint *c, clmc_series *s)
{
    if (c->row_values != s->n_configs * s->n_columns || c->n_rows > s->capacity)
        return clmc_fail(CLMC_ERR_INPUT, "checkpoint: %llu measurements of %llu values do not fit the preset's series",
                         (unsigned long long)c->n_rows, (unsigned long long)c->row_values);
    memcpy(s->sweeps, c->sweeps, c->n_rows * sizeof *s->sweeps);
    memcpy(s->rows, c->rows, c->n_rows * c->row_values * sizeof *s->rows);
    s->n_rows = c->n_rows;
    return CLMC_OK;
}

clmc_status clmc_checkpoint_restore(const clmc_checkpoint *c, const clmc_model_ops *ops, void *state,
                                    clmc_tempering *pt, clmc_series *s)
{
    if (!ops->load_state) return clmc_fail(CLMC_ERR_INPUT, "model \"%s\" cannot checkpoint yet", ops->type);
    CLMC_TRY(restore_tempering(c, pt));
    CLMC_TRY(restore_series(c, s));
    CLMC_TRY(ops->load_state(state, c->model_blob, c->model_bytes));
    return clmc_tempering_apply(pt, ops, state);
}

/* ---- The output directory ------------------------------------------------ */

clmc_status clmc_output_lock(const char *dir, int *fd)
{
    *fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*fd < 0) return clmc_fail(CLMC_ERR_INPUT, "output directory %s: cannot open it: %s", dir, strerror(errno));
    if (flock(*fd, LOCK_EX | LOCK_NB) == 0) return CLMC_OK;
    int error = errno;
    if (error != EWOULDBLOCK) { /* file systems without locks: the run goes on, said so */
        fprintf(stderr, "clmc: warning: cannot lock %s (%s); a second run on it at once would not be noticed\n", dir,
                strerror(error));
        return CLMC_OK;
    }
    close(*fd);
    *fd = -1;
    return clmc_fail(CLMC_ERR_INPUT, "output directory %s is in use: another clmc run holds it (one run at a time "
                     "per directory); wait for that run to end, or choose another --out", dir);
}

clmc_status clmc_checkpoint_clear(const char *dir, bool overwrite)
{
    const char *names[] = {CLMC_CHECKPOINT_FILE, CLMC_CHECKPOINT_PREVIOUS, ".checkpoint.new"};
    char path[4200];
    struct stat st;
    for (int i = 0; i < 2 && !overwrite; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (lstat(path, &st) == 0)
            return clmc_fail(CLMC_ERR_INPUT, "output directory %s holds an earlier run's checkpoint (%s), which "
                             "'clmc run --resume %s' continues; refused so that it is not lost: resume it, choose "
                             "another --out, or give --overwrite to start afresh (the checkpoint is then removed)",
                             dir, path, dir);
    }
    bool removed = false;
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (unlink(path) == 0) removed = true;
        else if (errno != ENOENT) return clmc_fail(CLMC_ERR_OTHER, "cannot remove %s: %s", path, strerror(errno));
    }
    return removed ? fsync_directory(dir) : CLMC_OK;
}

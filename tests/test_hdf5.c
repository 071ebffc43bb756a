/* output.format "hdf5" (result.h5): the series equals series.csv of the same
 * run value for value; the final configuration reproduces the last measured
 * energies and magnetisations; a run killed after a checkpoint and resumed
 * writes the uninterrupted run's file content, and a csv run over an hdf5
 * one removes its result.h5; hard-disk positions are
 * configuration.csv's, inside the box and without overlaps; a bad
 * output.format exits 2 naming the key. */
#include <criterion/criterion.h>
#include <hdf5.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "testenv.h"

/* Ising L = 8 under parallel tempering (system, temperature, beta columns). */
static const char tempering_preset[] =
    "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8}, \"algorithm\": {\"tile\": 4},"
    " \"ensemble\": {\"type\": \"parallel_tempering\", \"betas\": [0.3, 0.4, 0.5], \"exchange_every\": 5},"
    " \"run\": {\"thermalization\": 100, \"sweeps\": 3000, \"seed\": 4}}";
/* Long enough on PoCL for a kill to land between checkpoints (about 3 s). */
static const char checkpoint_preset[] =
    "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 16}, \"ensemble\": {\"type\": \"parallel_tempering\","
    " \"betas\": [0.3, 0.36, 0.42, 0.48], \"exchange_every\": 5}, \"run\": {\"thermalization\": 100,"
    " \"sweeps\": 8000, \"seed\": 3, \"checkpoint_every\": 400}}";
static const char disks_preset[] =
    "{\"model\": {\"type\": \"hard_disks\", \"N\": 256, \"packing_fraction\": 0.70, \"write_configuration\": true},"
    " \"run\": {\"thermalization\": 100, \"sweeps\": 400, \"measure_every\": 10, \"seed\": 2}}";

static hid_t open_result(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/result.h5", dir);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert(file >= 0, "cannot open %s", path);
    return file;
}

/* A whole dataset converted to `memory_type`; its element count in *n and
 * its dimensions in dims (room for 5). */
static void *read_dataset(hid_t file, const char *name, hid_t memory_type, size_t item, size_t *n, hsize_t *dims)
{
    hid_t dataset = H5Dopen2(file, name, H5P_DEFAULT);
    cr_assert(dataset >= 0, "no dataset %s", name);
    hid_t space = H5Dget_space(dataset);
    int rank = H5Sget_simple_extent_dims(space, dims, NULL);
    *n = 1;
    for (int d = 0; d < rank; d++) *n *= dims[d];
    void *values = malloc(*n ? *n * item : 1);
    cr_assert(H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0, "reading %s", name);
    H5Sclose(space);
    H5Dclose(dataset);
    return values;
}

static double *read_column(hid_t file, const char *name, size_t *n)
{
    char path[256];
    hsize_t dims[5];
    snprintf(path, sizeof path, "series/%s", name);
    return read_dataset(file, path, H5T_NATIVE_DOUBLE, sizeof(double), n, dims);
}

/* series.csv parsed: names[c] and values[row * width + c]. */
typedef struct {
    char names[16][32];
    size_t width, rows;
    double *values;
} csv_table;

static csv_table read_csv(const char *dir)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/series.csv", dir);
    char *text = test_read_file(path), *at = text;
    cr_assert(text, "no %s", path);
    csv_table t = {.width = 0};
    while (*at != '\n') {
        size_t length = strcspn(at, ",\n");
        snprintf(t.names[t.width++], sizeof t.names[0], "%.*s", (int)length, at);
        at += length + (at[length] == ',');
    }
    size_t capacity = 1024;
    t.values = malloc(capacity * sizeof *t.values);
    for (char *end; *at && *++at;) {
        if (t.rows * t.width + t.width > capacity) t.values = realloc(t.values, (capacity *= 2) * sizeof *t.values);
        for (size_t c = 0; c < t.width; c++, at = end + 1) t.values[t.rows * t.width + c] = strtod(at, &end);
        t.rows++;
        at--;
    }
    free(text);
    return t;
}

/* Every series.csv column of `csv_dir` equals its dataset in `h5_dir`'s result.h5. */
static void expect_series_equal(const char *csv_dir, const char *h5_dir)
{
    csv_table t = read_csv(csv_dir);
    hid_t file = open_result(h5_dir);
    for (size_t c = 0; c < t.width; c++) {
        size_t n, same = 0;
        double *column = read_column(file, t.names[c], &n);
        cr_assert_eq(n, t.rows, "%s: %zu rows in result.h5, %zu in series.csv", t.names[c], n, t.rows);
        for (size_t r = 0; r < n; r++) same += column[r] == t.values[r * t.width + c];
        printf("column %-14s %zu of %zu values equal (last %.17g and %.17g)\n", t.names[c], same, n, column[n - 1],
               t.values[(n - 1) * t.width + c]);
        cr_expect_eq(same, n, "column %s differs", t.names[c]);
        free(column);
    }
    H5Fclose(file);
    free(t.values);
}

Test(hdf5, tempering_series_equals_csv_and_configurations_give_the_last_row)
{
    char *dir = test_scratch_dir("h5-series"), *preset = test_write_preset(dir, tempering_preset);
    cr_assert_eq(test_run_clmc(NULL, "run '%s' --quiet --out '%s/csv'", preset, dir), 0, "csv run");
    cr_assert_eq(test_run_clmc(NULL, "run '%s' --quiet --out '%s/h5' --set output.format=hdf5", preset, dir), 0,
                 "hdf5 run");
    char path[4200];
    snprintf(path, sizeof path, "%s/h5/series.csv", dir);
    cr_expect(!test_path_exists(path), "series.csv written beside result.h5");
    char csv_dir[4200], h5_dir[4200];
    snprintf(csv_dir, sizeof csv_dir, "%s/csv", dir);
    snprintf(h5_dir, sizeof h5_dir, "%s/h5", dir);
    expect_series_equal(csv_dir, h5_dir);
    cJSON *a = test_load_result(csv_dir), *b = test_load_result(h5_dir);
    cr_expect(cJSON_Compare(cJSON_GetObjectItem(a, "observables"), cJSON_GetObjectItem(b, "observables"), true),
              "observables differ between the csv and the hdf5 run");
    cJSON_Delete(a);
    cJSON_Delete(b);

    /* The final configurations (configuration order) through config_at
     * against the last measurement's rows (temperature order). */
    hid_t file = open_result(h5_dir);
    size_t n_spins, n_map, n_energy, n_magnetization;
    hsize_t dims[5];
    signed char *spins = read_dataset(file, "configuration/spins", H5T_NATIVE_SCHAR, 1, &n_spins, dims);
    cr_assert(dims[0] == 3 && dims[1] == 8 && dims[2] == 8, "spins shape %llu x %llu x %llu",
              (unsigned long long)dims[0], (unsigned long long)dims[1], (unsigned long long)dims[2]);
    unsigned *config_at = read_dataset(file, "configuration/config_at", H5T_NATIVE_UINT, sizeof(unsigned), &n_map, dims);
    cr_assert_eq(n_map, 3);
    double *energy = read_column(file, "energy", &n_energy), *magnetization = read_column(file, "magnetization", &n_magnetization);
    for (int t = 0; t < 3; t++) {
        cr_assert_lt(config_at[t], 3);
        const signed char *s = spins + config_at[t] * 64;
        long bonds = 0, sum = 0;
        for (int y = 0; y < 8; y++)
            for (int x = 0; x < 8; x++) {
                sum += s[8 * y + x];
                bonds += s[8 * y + x] * (s[8 * y + (x + 1) % 8] + s[8 * ((y + 1) % 8) + x]);
            }
        double e = -bonds / 64.0, m = sum / 64.0;
        printf("temperature %d (configuration %u): from the configuration e = %g, m = %g; last row e = %g, m = %g\n",
               t, config_at[t], e, m, energy[n_energy - 3 + t], magnetization[n_magnetization - 3 + t]);
        cr_expect_eq(e, energy[n_energy - 3 + t]);
        cr_expect_eq(m, magnetization[n_magnetization - 3 + t]);
    }
    free(config_at);
    free(spins);
    free(energy);
    free(magnetization);
    H5Fclose(file);

    /* A csv run over it leaves no stale result.h5 for loaders to prefer. */
    cr_assert_eq(test_run_clmc(NULL, "run '%s' --quiet --overwrite --out '%s/h5'", preset, dir), 0, "csv run over it");
    snprintf(path, sizeof path, "%s/h5/result.h5", dir);
    cr_expect(!test_path_exists(path), "result.h5 of the earlier run stayed beside series.csv");
    free(preset);
    free(dir);
}

/* Every dataset of result.h5 under series/ and configuration/ byte for byte. */
static void expect_same_h5(const char *dir_a, const char *dir_b)
{
    const char *names[] = {"series/sweep", "series/temperature", "series/beta", "series/energy",
                           "series/magnetization", "configuration/spins"};
    hid_t a = open_result(dir_a), b = open_result(dir_b);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n_a, n_b;
        hsize_t dims[5];
        double *x = read_dataset(a, names[i], H5T_NATIVE_DOUBLE, sizeof(double), &n_a, dims);
        double *y = read_dataset(b, names[i], H5T_NATIVE_DOUBLE, sizeof(double), &n_b, dims);
        bool same = n_a == n_b && memcmp(x, y, n_a * sizeof *x) == 0;
        printf("%-22s %zu and %zu values, %s\n", names[i], n_a, n_b, same ? "identical" : "DIFFERENT");
        cr_expect(same, "%s differs", names[i]);
        free(x);
        free(y);
    }
    H5Fclose(a);
    H5Fclose(b);
}

Test(hdf5, killed_and_resumed_run_writes_the_uninterrupted_file)
{
    char *dir = test_scratch_dir("h5-resume"), *preset = test_write_preset(dir, checkpoint_preset);
    char args[8400], log[8400], path[8400];
    cr_assert_eq(test_run_clmc(NULL, "run '%s' --quiet --out '%s/reference' --set output.format=hdf5", preset, dir), 0);
    snprintf(args, sizeof args, "run '%s' --out '%s/resumed' --set output.format=hdf5", preset, dir);
    snprintf(log, sizeof log, "%s/interrupted.log", dir);
    pid_t pid = test_spawn_clmc(args, log);
    snprintf(path, sizeof path, "%s/resumed/checkpoint.clmc", dir);
    test_wait_for_file(path, pid);
    test_sleep_ms(150); /* past the first checkpoint: rows were appended since */
    kill(pid, SIGKILL);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFSIGNALED(status), "the run ended before the kill");
    snprintf(path, sizeof path, "%s/resumed/result.h5", dir);
    cr_assert(!test_path_exists(path), "a killed run left result.h5");
    char *output = NULL;
    int rc = test_run_clmc(&output, "run --resume '%s/resumed' --quiet", dir);
    cr_assert_eq(rc, 0, "resume failed: %s", output ? output : "");
    free(output);
    snprintf(path, sizeof path, "%s/resumed/.result.h5.partial", dir);
    cr_expect(!test_path_exists(path), "the partial file stayed after the run");
    char reference[4200], resumed[4200];
    snprintf(reference, sizeof reference, "%s/reference", dir);
    snprintf(resumed, sizeof resumed, "%s/resumed", dir);
    expect_same_h5(reference, resumed);
    free(preset);
    free(dir);
}

Test(hdf5, hard_disk_positions_are_the_configuration_inside_the_box_without_overlaps)
{
    char *dir = test_scratch_dir("h5-disks"), *preset = test_write_preset(dir, disks_preset);
    cr_assert_eq(test_run_clmc(NULL, "run '%s' --quiet --out '%s/run' --set output.format=hdf5", preset, dir), 0);
    char path[4200];
    snprintf(path, sizeof path, "%s/run", dir);
    hid_t file = open_result(path);
    size_t n;
    hsize_t dims[5];
    double *xy = read_dataset(file, "configuration/positions", H5T_NATIVE_DOUBLE, sizeof(double), &n, dims);
    double box;
    hid_t dataset = H5Dopen2(file, "configuration/positions", H5P_DEFAULT);
    hid_t attribute = H5Aopen(dataset, "box_length", H5P_DEFAULT);
    cr_assert(H5Aread(attribute, H5T_NATIVE_DOUBLE, &box) >= 0, "no box_length");
    H5Aclose(attribute);
    H5Dclose(dataset);
    H5Fclose(file);
    cr_assert(dims[0] == 256 && dims[1] == 2, "positions shape %llu x %llu", (unsigned long long)dims[0],
              (unsigned long long)dims[1]);
    printf("box length %.9g, expected sqrt(256 pi / (4 0.70)) = %.9g\n", box, sqrt(256 * acos(-1.0) / (4 * 0.70)));
    cr_expect(fabs(box - sqrt(256 * acos(-1.0) / (4 * 0.70))) < 1e-6 * box); /* w is a float */

    snprintf(path, sizeof path, "%s/run/configuration.csv", dir);
    char *csv = test_read_file(path), *at = strchr(csv, '\n') + 1;
    double worst = 0, closest = INFINITY;
    size_t outside = 0;
    for (size_t i = 0; i < 256; i++) {
        char *end;
        double x = strtod(at, &end), y = strtod(end + 1, &end);
        at = strchr(end, '\n') + 1;
        worst = fmax(worst, fmax(fabs(x - xy[2 * i]), fabs(y - xy[2 * i + 1])));
        outside += xy[2 * i] < 0 || xy[2 * i] >= box || xy[2 * i + 1] < 0 || xy[2 * i + 1] >= box;
        for (size_t j = 0; j < i; j++) {
            double dx = xy[2 * i] - xy[2 * j], dy = xy[2 * i + 1] - xy[2 * j + 1];
            dx -= box * round(dx / box);
            dy -= box * round(dy / box);
            closest = fmin(closest, sqrt(dx * dx + dy * dy));
        }
    }
    printf("largest difference to configuration.csv (9 digits) %.3g; closest pair %.9f sigma; %zu outside the box\n",
           worst, closest, outside);
    cr_expect(worst < 1e-7 * box, "positions differ from configuration.csv by %g", worst);
    cr_expect(closest >= 1 - 1e-5, "overlap: closest pair %g", closest);
    cr_expect_eq(outside, 0);
    free(csv);
    free(xy);
    free(preset);
    free(dir);
}

Test(hdf5, unknown_format_exits_2_naming_the_key)
{
    char *dir = test_scratch_dir("h5-bad"), *preset = test_write_preset(dir, disks_preset), *output = NULL;
    int rc = test_run_clmc(&output, "check '%s' --set output.format=xml", preset);
    printf("exit %d: %s\n", rc, output ? output : "");
    cr_expect_eq(rc, 2);
    cr_expect(output && strstr(output, "output.format") && strstr(output, "\"hdf5\""));
    free(output);
    free(preset);
    free(dir);
}

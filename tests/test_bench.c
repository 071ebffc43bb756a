/* Comparing devices (issue 7): the bench JSON document and --compare, the
 * copy-bandwidth listing, the tuning cache (round trip, refused versions),
 * and tuned runs against untuned ones. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/engine.h"
#include "clmc/preset.h"
#include "physics.h"
#include "testenv.h"
#include "engine/tuning.h"
#include "cli/bench_report.h"

static const cJSON *item(const cJSON *object, const char *name)
{
    const cJSON *found = cJSON_GetObjectItem(object, name);
    cr_assert(found, "field \"%s\" missing", name);
    return found;
}

/* A metric: value, unit and direction, as the bench JSON promises. */
static void expect_metric(const cJSON *metrics, const char *name)
{
    const cJSON *metric = item(metrics, name);
    cr_expect(cJSON_IsNumber(item(metric, "value")), "%s: no number", name);
    cr_expect(cJSON_IsString(item(metric, "unit")), "%s: no unit", name);
    cr_expect(cJSON_IsString(item(metric, "direction")), "%s: no direction", name);
    printf("  %s = %g %s\n", name, item(metric, "value")->valuedouble, item(metric, "unit")->valuestring);
}

Test(bench, json_has_every_field_and_compare_reports_the_ratio, .timeout = 300)
{
    char *dir = test_scratch_dir("bench-json"), old_path[4200], new_path[4200], *output = NULL;
    snprintf(old_path, sizeof old_path, "%s/old.json", dir);
    snprintf(new_path, sizeof new_path, "%s/new.json", dir);
    const char *preset = "$CLMC_PRESET_DIR/quickstart.json --set model.L=32 --set run.sweeps=20 --repetitions 2";
    cr_assert_eq(test_run_clmc(NULL, "bench %s --quiet --json %s", preset, old_path), 0);
    char *text = test_read_file(old_path);
    cJSON *doc = cJSON_Parse(text);
    cr_assert(doc, "bench JSON does not parse");
    cr_expect_str_eq(item(doc, "schema")->valuestring, "clmc-bench");
    cr_expect_eq(item(doc, "format_version")->valueint, 1);
    cr_expect(cJSON_IsString(item(doc, "host")) && cJSON_IsString(item(doc, "invocation")) &&
              cJSON_IsString(item(doc, "date")) && cJSON_IsObject(item(doc, "preset")));
    const cJSON *entry = cJSON_GetArrayItem(item(doc, "devices"), 0);
    cr_assert(entry, "no device entry");
    const cJSON *device = item(entry, "device");
    printf("bench JSON for %s (driver %s), status %s:\n", item(device, "name")->valuestring,
           item(device, "driver")->valuestring, item(entry, "status")->valuestring);
    cr_expect_str_eq(item(entry, "status")->valuestring, "ok");
    const char *metrics[] = {"ns_per_update", "updates_per_second", "achieved_bandwidth", "copy_bandwidth",
                             "bandwidth_fraction"};
    for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; i++) expect_metric(item(entry, "metrics"), metrics[i]);
    cJSON_Delete(doc);
    free(text);
    int status = test_run_clmc(&output, "bench %s --json %s --compare %s", preset, new_path, old_path);
    printf("%s", output);
    cr_expect_eq(status, 0);
    cr_expect(strstr(output, "new/old") && strstr(output, "x ("), "no ratio against the old run in the output");
    free(output);
    status = test_run_clmc(&output, "bench %s --compare $CLMC_PRESET_DIR/quickstart.json", preset);
    printf("%s", output);
    cr_expect_eq(status, 2, "a preset is not a bench document: exit 2");
    cr_expect(strstr(output, "not a clmc-bench document"), "the message says what is wrong");
    free(output);
    free(dir);
}

Test(bench, devices_report_their_own_copy_bandwidth, .timeout = 120)
{
    char *output = NULL;
    cr_assert_eq(test_run_clmc(&output, "devices --json --bandwidth"), 0);
    cJSON *list = cJSON_Parse(output);
    cr_assert(cJSON_IsArray(list), "devices --json --bandwidth is not a JSON list: %s", output);
    const cJSON *device;
    cJSON_ArrayForEach(device, list) {
        const cJSON *bandwidth = item(device, "copy_bandwidth");
        printf("%s: copy bandwidth %.3g %s (%s)\n", item(device, "name")->valuestring,
               item(bandwidth, "value")->valuedouble, item(bandwidth, "unit")->valuestring,
               item(bandwidth, "status")->valuestring);
        cr_expect(item(bandwidth, "value")->valuedouble > 1e8, "implausible copy bandwidth");
    }
    cJSON_Delete(list);
    free(output);
}

static char *scratch_file(const char *label, const char *name)
{
    char *dir = test_scratch_dir(label), *path = malloc(4200);
    snprintf(path, 4200, "%s/%s", dir, name);
    free(dir);
    return path;
}

Test(bench, tuning_cache_round_trips)
{
    char *file = scratch_file("tuning-cache", "tuning.txt");
    clmc_tuning a = {.n = 2, .paths = {"algorithm.tile", "algorithm.item_width"}, .values = {32, 4}, .ns_per_update = 0.5};
    clmc_tuning b = {.n = 1, .paths = {"algorithm.tile"}, .values = {64}, .ns_per_update = 0.25}, got;
    bool found = true;
    cr_assert_eq(clmc_tuning_lookup(file, "dev\tdrv\t0\t{}", &got, &found), CLMC_OK, "a missing file is no entry");
    cr_expect(!found);
    cr_assert_eq(clmc_tuning_store(file, "dev\tdrv\t0\t{\"a\":1}", &a), CLMC_OK, "%s", clmc_error_message());
    cr_assert_eq(clmc_tuning_store(file, "dev\tdrv\t0\t{\"b\":2}", &b), CLMC_OK, "%s", clmc_error_message());
    b.values[0] = 16;
    cr_assert_eq(clmc_tuning_store(file, "dev\tdrv\t0\t{\"b\":2}", &b), CLMC_OK, "replacing an entry");
    char *text = test_read_file(file);
    printf("%s", text);
    cr_expect(strncmp(text, "# clmc tuning cache, format 1\n", 30) == 0, "header with the format version");
    cr_expect(strstr(text, "algorithm.tile=64") == NULL, "the replaced entry is gone");
    free(text);
    cr_assert_eq(clmc_tuning_lookup(file, "dev\tdrv\t0\t{\"a\":1}", &got, &found), CLMC_OK);
    cr_expect(found && got.n == 2 && got.values[0] == 32 && got.values[1] == 4 &&
              strcmp(got.paths[1], "algorithm.item_width") == 0, "entry a read back");
    cr_assert_eq(clmc_tuning_lookup(file, "dev\tdrv\t0\t{\"b\":2}", &got, &found), CLMC_OK);
    cr_expect(found && got.n == 1 && got.values[0] == 16 && got.ns_per_update == 0.25, "entry b read back");
    cr_assert_eq(clmc_tuning_lookup(file, "other\tdrv\t0\t{\"b\":2}", &got, &found), CLMC_OK);
    cr_expect(!found, "another device has no entry");
    free(file);
}

Test(bench, tuning_cache_of_another_format_is_refused_and_kept)
{
    char *file = scratch_file("tuning-version", "tuning.txt");
    const char *texts[] = {"# clmc tuning cache, format 99\nx\ty\tz\tw\talgorithm.tile=8\t1\n", "garbage\n"};
    const char *needles[] = {"format version 99", "not a clmc tuning cache"};
    for (int i = 0; i < 2; i++) {
        test_write_file(file, texts[i]);
        clmc_tuning t = {.n = 1, .paths = {"algorithm.tile"}, .values = {8}};
        bool found;
        clmc_status lookup = clmc_tuning_lookup(file, "x\ty\tz\tw", &t, &found);
        printf("lookup: %s\n", clmc_error_message());
        cr_expect_eq(lookup, CLMC_ERR_INPUT);
        cr_expect(strstr(clmc_error_message(), needles[i]) && strstr(clmc_error_message(), "clmc tune again"),
                  "the message names the problem and the fix");
        cr_expect_eq(clmc_tuning_store(file, "x\ty\tz\tw", &t), CLMC_ERR_INPUT, "a foreign file is not overwritten");
        char *after = test_read_file(file);
        cr_expect_str_eq(after, texts[i], "the file changed");
        free(after);
    }
    free(file);
}

static cJSON *run_preset(const char *text, const char *label, bool tuning)
{
    char *dir = test_scratch_dir(label), out[4300];
    snprintf(out, sizeof out, "output.dir=\"%s\"", dir);
    const char *overrides[] = {out};
    clmc_preset *preset = NULL;
    cr_assert_eq(clmc_preset_parse(text, strlen(text), label, overrides, 1, &preset), CLMC_OK, "%s",
                 clmc_error_message());
    clmc_run_options options = {.quiet = true, .launch = {.no_tuning = !tuning}};
    cr_assert_eq(clmc_run(preset, &options), CLMC_OK, "%s", clmc_error_message());
    clmc_preset_free(preset);
    cJSON *result = test_load_result(dir);
    free(dir);
    return result;
}

/* clmc tune on the Potts labeling tile (every tile gives the same labels);
 * then the entry is pointed at tile 8, unlike the model's default (32 at
 * L = 32), and the tuned run must report its source, use 8, and equal the
 * untuned run bit for bit. */
Test(bench, tuned_run_equals_untuned_run, .timeout = 600)
{
    char *file = scratch_file("tuning-run", "tuning.txt");
    setenv("CLMC_TUNING_FILE", file, 1);
    const char *text = "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 32, \"q\": 3}, \"algorithm\": {\"type\": "
                       "\"swendsen_wang\"}, \"ensemble\": {\"beta\": 1.0}, \"run\": {\"thermalization\": 10, "
                       "\"sweeps\": 40, \"seed\": 7}}";
    clmc_preset *preset = NULL;
    cr_assert_eq(clmc_preset_parse(text, strlen(text), "tune", NULL, 0, &preset), CLMC_OK);
    clmc_tune_options options = {.repetitions = 1, .quiet = false};
    clmc_tune_result r;
    cr_assert_eq(clmc_tune(preset, &options, &r), CLMC_OK, "%s", clmc_error_message());
    clmc_preset_free(preset);
    printf("tuned: %d of %d candidates passed; defaults %.3f ns, best %.3f ns; stored %s in %s\n",
           r.candidates_passed, r.candidates_tried, r.default_ns_per_update, r.tuned_ns_per_update, r.values, r.file);
    cr_expect(r.candidates_passed >= 3 && r.tuned_ns_per_update <= r.default_ns_per_update);
    clmc_device_info device;
    char *key = NULL;
    cr_assert_eq(clmc_device_select(NULL, &device), CLMC_OK);
    cr_assert_eq(clmc_preset_parse(text, strlen(text), "tune", NULL, 0, &preset), CLMC_OK);
    cr_assert_eq(clmc_tuning_key(preset, clmc_model_find("potts"), &device, &key), CLMC_OK);
    clmc_preset_free(preset);
    clmc_tuning eight = {.n = 1, .paths = {"algorithm.tile"}, .values = {8}, .ns_per_update = 1};
    cr_assert_eq(clmc_tuning_store(file, key, &eight), CLMC_OK, "%s", clmc_error_message());
    free(key);
    cJSON *tuned = run_preset(text, "tuned", true);
    cJSON *untuned = run_preset(text, "untuned", false);
    const char *source = cJSON_GetObjectItem(cJSON_GetObjectItem(tuned, "tuning"), "source")->valuestring;
    const char *hash[2] = {
        cJSON_GetObjectItem(cJSON_GetObjectItem(tuned, "checks"), "configuration_fnv1a")->valuestring,
        cJSON_GetObjectItem(cJSON_GetObjectItem(untuned, "checks"), "configuration_fnv1a")->valuestring};
    double energy[2] = {test_observable(tuned, "energy", "mean"), test_observable(untuned, "energy", "mean")};
    printf("tuned run (%s, tile %d): configuration %s, energy %.12f; untuned (tile %d): %s, %.12f\n", source,
           cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(tuned, "preset"), "algorithm"), "tile")->valueint,
           hash[0], energy[0],
           cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(untuned, "preset"), "algorithm"), "tile")->valueint,
           hash[1], energy[1]);
    cr_expect_str_eq(source, "tuned");
    cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(tuned, "preset"), "algorithm"), "tile")->valueint,
                 8, "the tuned value was not used");
    cr_expect_str_eq(hash[0], hash[1]);
    cr_expect_eq(energy[0], energy[1]);
    cJSON_Delete(tuned);
    cJSON_Delete(untuned);
    unsetenv("CLMC_TUNING_FILE");
    free(file);
}

/* The configuration picture on request, and the plotting tools on a run's
 * files (skipped, with a message, where python3 has no matplotlib). */
Test(bench, picture_and_plots, .timeout = 300)
{
    char *dir = test_scratch_dir("picture"), *output = NULL, path[4300];
    cr_assert_eq(test_run_clmc(NULL, "run $CLMC_PRESET_DIR/quickstart.json --quiet --out %s --set model.L=48 "
                                     "--set output.picture=true --set run.sweeps=200", dir), 0);
    snprintf(path, sizeof path, "%s/configuration.pgm", dir);
    char *pgm = test_read_file(path);
    cr_assert(pgm, "no configuration.pgm");
    cr_expect(strncmp(pgm, "P5\n48 48\n255\n", 13) == 0, "a 48 x 48 binary grey map");
    free(pgm);
    if (system("python3 -c 'import matplotlib' 2>/dev/null") != 0) {
        free(dir);
        cr_skip_test("python3 has no matplotlib (tools/setup.sh installs it): plots not checked");
    }
    char command[9000];
    snprintf(command, sizeof command, "python3 $CLMC_PRESET_DIR/../tools/plot_series.py %s && "
             "python3 $CLMC_PRESET_DIR/../tools/plot_configuration.py %s", dir, dir);
    cr_expect_eq(system(command), 0, "the plotting tools failed");
    const char *images[] = {"series.png", "configuration.png"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, images[i]);
        char *png = test_read_file(path);
        cr_expect(png && strncmp(png + 1, "PNG", 3) == 0, "%s is not a PNG image", images[i]);
        printf("%s written\n", images[i]);
        free(png);
    }
    free(output);
    free(dir);
}

/* The keys this suite's features added refuse bad values by name, with exit
 * 2 and nothing written. */
Test(bench, bad_tuning_and_picture_keys_are_input_errors, .timeout = 120)
{
    static const struct {
        const char *preset, *needle;
    } cases[] = {
        {"{\"model\": {\"type\": \"ising\", \"L\": 32}, \"algorithm\": {\"item_width\": 3}, \"ensemble\": {\"beta\": 0.4}}",
         "algorithm.item_width: must be 0 (automatic), 2, 4 or 8"},
        {"{\"model\": {\"type\": \"ising\", \"L\": 32}, \"algorithm\": {\"tile\": 4, \"item_width\": 8},"
         " \"ensemble\": {\"beta\": 0.4}}", "algorithm.item_width: 8 must divide algorithm.tile = 4"},
        {"{\"model\": {\"type\": \"ising\", \"L\": 32}, \"algorithm\": {\"layout\": \"naive\", \"item_width\": 4},"
         " \"ensemble\": {\"beta\": 0.4}}", "algorithm.item_width: 4 is for layout \"tiled\" only"},
        {"{\"model\": {\"type\": \"ising\", \"L\": 64}, \"algorithm\": {\"layout\": \"tiled\", \"update_group\": 64},"
         " \"ensemble\": {\"beta\": 0.4}}", "algorithm.update_group: 64 is for layout \"msc\" only"},
        {"{\"model\": {\"type\": \"ising\", \"L\": 64}, \"algorithm\": {\"layout\": \"msc\", \"update_group\": 2048},"
         " \"ensemble\": {\"beta\": 0.4}}", "algorithm.update_group"},
        {"{\"model\": {\"type\": \"ising\", \"L\": 32}, \"algorithm\": {\"layout\": \"naive\", \"tile\": 8},"
         " \"ensemble\": {\"beta\": 0.4}}", "algorithm.tile: 8 is for layout \"tiled\" only"},
        {"{\"model\": {\"type\": \"ea_ising\", \"L\": 8, \"realizations\": 64}, \"ensemble\": {\"beta\": 1},"
         " \"output\": {\"picture\": true}}", "output.picture: model \"ea_ising\" draws no picture"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char label[32];
        snprintf(label, sizeof label, "bench-invalid-%zu", i);
        expect_input_error(cases[i].preset, label, cases[i].needle);
    }
}

/* A figure above the copy bandwidth cannot be true: the table and the JSON
 * flag it as an error of the model's traffic estimate (issue 26 item 5). */
Test(bench, bandwidth_above_copy_is_flagged_as_a_traffic_model_error)
{
    cr_expect_str_eq(clmc_bench_fraction_status(0.95), "ok");
    cr_expect_str_eq(clmc_bench_fraction_status(1.0), "ok");
    cr_expect_str_eq(clmc_bench_fraction_status(1.071), "traffic_model_error");
    clmc_bench_entry entries[2] = {0};
    for (int i = 0; i < 2; i++) {
        snprintf(entries[i].device.name, sizeof entries[i].device.name, "device %d", i);
        entries[i].status = CLMC_OK;
        entries[i].ns_per_update = 1;
        entries[i].copy_bytes_per_second = 1e12;
        entries[i].achieved_bytes_per_second = i ? 1.071e12 : 0.5e12; /* device 1: an inflated bytes_per_sweep */
    }
    char *table = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&table, &size);
    clmc_bench_print_table(out, entries, 2);
    fclose(out);
    printf("%s", table);
    cr_expect(strstr(table, "107.1%"), "the figure is not shown");
    cr_expect(strstr(table, "traffic estimate"), "the table does not flag the figure");
    cr_expect(strstr(table, "traffic estimate") > strstr(table, "device 1"), "the flag is not under device 1");
    free(table);
    char *dir = test_scratch_dir("bench-flag"), path[4200];
    snprintf(path, sizeof path, "%s/bench.json", dir);
    clmc_preset *preset = NULL;
    const char *text = "{\"model\": {\"type\": \"ising\", \"L\": 16}, \"ensemble\": {\"beta\": 0.4}}";
    cr_assert_eq(clmc_preset_parse(text, strlen(text), NULL, NULL, 0, &preset), CLMC_OK);
    cr_assert_eq(clmc_bench_write_json(path, preset, "test", NULL, entries, 2), CLMC_OK, "%s", clmc_error_message());
    clmc_preset_free(preset);
    char *written = test_read_file(path);
    cJSON *doc = cJSON_Parse(written);
    cr_assert_not_null(doc);
    for (int i = 0; i < 2; i++) {
        cJSON *fraction = cJSON_GetObjectItem(
            cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "devices"), i), "metrics"),
            "bandwidth_fraction");
        cJSON *status = cJSON_GetObjectItem(fraction, "status");
        cr_assert(cJSON_IsString(status), "device %d: no status on bandwidth_fraction", i);
        cr_expect_str_eq(status->valuestring, i ? "traffic_model_error" : "ok");
        cr_expect(i == 0 || cJSON_IsString(cJSON_GetObjectItem(fraction, "warning")), "no warning text");
    }
    cJSON_Delete(doc);
    free(written);
    free(dir);
}

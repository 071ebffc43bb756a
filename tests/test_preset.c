/* Unit tests of preset parsing: defaults, every error class with its message, overrides, round trip. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clmc/preset.h"

static const char minimal_preset[] =
    "{\n"
    "  \"model\": { \"type\": \"ising\", \"L\": 32 },\n"
    "  \"ensemble\": { \"beta\": 0.44 }\n"
    "}\n";

static clmc_status parse_with(const char *text, const char *const *overrides, size_t n_overrides,
                              clmc_preset **out)
{
    return clmc_preset_parse(text, strlen(text), "presets/mini.json", overrides, n_overrides, out);
}

/* Parses `text`, which must fail with CLMC_ERR_INPUT, and checks that the
 * message contains every one of the NULL-terminated `needles`. */
static void expect_input_error(const char *text, const char *const *overrides, size_t n_overrides,
                               const char *const *needles)
{
    clmc_preset *preset = NULL;
    clmc_clear_error();
    clmc_status status = parse_with(text, overrides, n_overrides, &preset);
    const char *message = clmc_error_message();
    cr_log_info("error message: %s", message);
    cr_assert_eq(status, CLMC_ERR_INPUT, "status %d for message: %s", (int)status, message);
    cr_assert_null(preset);
    for (size_t i = 0; needles[i]; i++)
        cr_assert(strstr(message, needles[i]), "message lacks '%s': %s", needles[i], message);
}

#define EXPECT_ERROR(text, ...) expect_input_error((text), NULL, 0, (const char *const[]){__VA_ARGS__, NULL})
#define EXPECT_OVERRIDE_ERROR(override, ...)                                                               \
    expect_input_error(minimal_preset, (const char *const[]){override}, 1,                                 \
                       (const char *const[]){__VA_ARGS__, NULL})

static clmc_preset *parse_ok(const char *text, const char *const *overrides, size_t n_overrides)
{
    clmc_preset *preset = NULL;
    clmc_status status = parse_with(text, overrides, n_overrides, &preset);
    cr_assert_eq(status, CLMC_OK, "parse failed: %s", clmc_error_message());
    cr_assert_not_null(preset);
    return preset;
}

/* ---- Valid presets -------------------------------------------------------- */

Test(preset, minimal_preset_resolves_with_defaults)
{
    clmc_preset *preset = parse_ok(minimal_preset, NULL, 0);
    cr_expect_str_eq(clmc_preset_string(preset, "name"), "mini");
    cr_expect_str_eq(clmc_preset_string(preset, "model.type"), "ising");
    cr_expect_eq(clmc_preset_int(preset, "model.dim"), 2);
    cr_expect_eq(clmc_preset_int(preset, "model.L"), 32);
    cr_expect_str_eq(clmc_preset_string(preset, "algorithm.type"), "metropolis");
    cr_expect_str_eq(clmc_preset_string(preset, "algorithm.layout"), "tiled");
    cr_expect_eq(clmc_preset_int(preset, "algorithm.tile"), 0);
    cr_expect_eq(clmc_preset_int(preset, "algorithm.hits"), 1);
    cr_expect_float_eq(clmc_preset_number(preset, "ensemble.beta"), 0.44, 1e-15);
    cr_expect_eq(clmc_preset_int(preset, "run.thermalization"), 1000);
    cr_expect_eq(clmc_preset_int(preset, "run.sweeps"), 10000);
    cr_expect_eq(clmc_preset_int(preset, "run.measure_every"), 1);
    cr_expect_eq(clmc_preset_int(preset, "run.seed"), 42);
    cr_expect_str_eq(clmc_preset_string(preset, "output.dir"), "out/mini");
    cr_expect_str_eq(clmc_preset_string(preset, "run.checkpoint_every"), "0");
    cr_expect_not(clmc_preset_has(preset, "run.no_such_key"));
    cr_expect_not(clmc_preset_has(preset, "model.L.x"));
    clmc_preset_free(preset);
}

Test(preset, string_source_is_unnamed)
{
    clmc_preset *a = NULL, *b = NULL;
    cr_assert_eq(clmc_preset_parse(minimal_preset, strlen(minimal_preset), NULL, NULL, 0, &a), CLMC_OK);
    cr_assert_eq(clmc_preset_parse(minimal_preset, strlen(minimal_preset), "<string>", NULL, 0, &b), CLMC_OK);
    cr_expect_str_eq(clmc_preset_string(a, "name"), "unnamed");
    cr_expect_str_eq(clmc_preset_string(b, "output.dir"), "out/unnamed");
    clmc_preset_free(a);
    clmc_preset_free(b);
}

Test(preset, explicit_values_win_and_seed_keeps_all_53_bits)
{
    clmc_preset *preset = parse_ok("{\"name\": \"crit\", \"model\": {\"type\": \"ising\", \"dim\": 3, \"L\": 64},"
                                   " \"algorithm\": {\"layout\": \"naive\"}, \"ensemble\": {\"beta\": 1000},"
                                   " \"run\": {\"seed\": 9007199254740991}, \"output\": {\"dir\": \"/tmp/x\"}}",
                                   NULL, 0);
    cr_expect_str_eq(clmc_preset_string(preset, "name"), "crit");
    cr_expect_eq(clmc_preset_int(preset, "model.dim"), 3);
    cr_expect_str_eq(clmc_preset_string(preset, "algorithm.layout"), "naive");
    cr_expect_eq(clmc_preset_int(preset, "run.seed"), 9007199254740991LL);
    cr_expect_str_eq(clmc_preset_string(preset, "output.dir"), "/tmp/x");
    clmc_preset_free(preset);
}

Test(preset, json_keys_come_in_schema_order)
{
    clmc_preset *preset =
        parse_ok("{\"run\": {\"seed\": 1}, \"ensemble\": {\"beta\": 1}, \"model\": {\"L\": 8, \"type\": \"ising\"}}",
                 NULL, 0);
    char *json = clmc_preset_to_json(preset);
    cr_log_info("resolved preset:\n%s", json);
    const char *keys[] = {"\"name\"", "\"model\"", "\"type\"", "\"dim\"", "\"L\"", "\"algorithm\"",
                          "\"layout\"", "\"ensemble\"", "\"run\"", "\"thermalization\"", "\"seed\"",
                          "\"output\"", "\"dir\""};
    const char *previous = json;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *at = strstr(previous, keys[i]);
        cr_assert(at, "%s missing or out of order in:\n%s", keys[i], json);
        previous = at;
    }
    free(json);
    clmc_preset_free(preset);
}

Test(preset, round_trip_through_to_json_is_identical)
{
    clmc_preset *first = parse_ok(minimal_preset, (const char *const[]){"run.seed=7"}, 1);
    char *json = clmc_preset_to_json(first);
    clmc_preset *second = NULL;
    cr_assert_eq(clmc_preset_parse(json, strlen(json), "again.json", NULL, 0, &second), CLMC_OK, "%s",
                 clmc_error_message());
    char *json_again = clmc_preset_to_json(second);
    cr_expect_str_eq(json_again, json);
    cr_expect(cJSON_Compare(clmc_preset_tree(first), clmc_preset_tree(second), true));
    cr_expect_str_eq(clmc_preset_string(second, "name"), "mini", "name came from the text, not the source");
    free(json);
    free(json_again);
    clmc_preset_free(first);
    clmc_preset_free(second);
}

Test(preset, set_int_changes_and_adds_values)
{
    clmc_preset *preset = parse_ok(minimal_preset, NULL, 0);
    clmc_preset_set_int(preset, "algorithm.tile", 16);
    clmc_preset_set_int(preset, "algorithm.work_group", 256);
    cr_expect_eq(clmc_preset_int(preset, "algorithm.tile"), 16);
    cr_expect_eq(clmc_preset_int(preset, "algorithm.work_group"), 256);
    clmc_preset_free(preset);
}

/* ---- Schema errors --------------------------------------------------------- */

Test(preset, unknown_key_suggests_the_close_one)
{
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"Lx\": 32}, \"ensemble\": {\"beta\": 1}}",
                 "presets/mini.json: model.Lx: ", "unknown key", "did you mean \"L\"?");
    EXPECT_ERROR("{\"Model\": {}, \"ensemble\": {\"beta\": 1}}", ": Model: ", "did you mean \"model\"?");
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 8}, \"ensemble\": {\"beta\": 1}, \"run\": {\"sweep\": 5}}",
                 "run.sweep: ", "did you mean \"sweeps\"?");
}

Test(preset, unknown_key_far_from_all_lists_allowed_keys)
{
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 8, \"size\": 3}, \"ensemble\": {\"beta\": 1}}",
                 "model.size: ", "unknown key; allowed keys: \"type\", \"dim\", \"L\"");
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 8}, \"ensemble\": {\"beta\": 1}, \"checkpoint\": 1}",
                 ": checkpoint: ", "allowed keys:", "\"output\"");
}

Test(preset, duplicate_key_is_an_error)
{
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 8, \"L\": 16}, \"ensemble\": {\"beta\": 1}}",
                 "presets/mini.json: model.L: ", "duplicate key");
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 8}, \"ensemble\": {\"beta\": 1}, \"ensemble\": {}}",
                 ": ensemble: ", "duplicate key");
}

Test(preset, wrong_types_name_expected_and_found)
{
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": \"big\"}, \"ensemble\": {\"beta\": 1}}",
                 ": model.L: ", "expected an integer", "got \"big\"");
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 8}, \"ensemble\": {\"beta\": [1]}}",
                 ": ensemble.beta: ", "expected a number", "got a list");
    EXPECT_ERROR("{\"name\": 5, \"model\": {\"type\": \"ising\", \"L\": 8}, \"ensemble\": {\"beta\": 1}}",
                 ": name: ", "expected a string", "got 5");
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 8}, \"ensemble\": {\"beta\": 1}, \"run\": 5}",
                 ": run: ", "expected an object", "got 5");
    EXPECT_ERROR("[1, 2]", "presets/mini.json: top level: ", "expected an object", "got a list");
}

Test(preset, integers_must_be_integral_and_in_range)
{
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 32.5}, \"ensemble\": {\"beta\": 1}}",
                 ": model.L: ", "expected an integer", "got 32.5");
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 3}, \"ensemble\": {\"beta\": 1}}",
                 ": model.L: ", "[4, 262144]", "got 3");
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 8}, \"ensemble\": {\"beta\": 1}, \"run\": {\"sweeps\": 0}}",
                 ": run.sweeps: ", "[1, 1000000000000]", "got 0");
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 8}, \"ensemble\": {\"beta\": 1}, "
                 "\"run\": {\"seed\": 9007199254740992}}",
                 ": run.seed: ", "[0, 9007199254740991]");
}

Test(preset, numbers_must_be_finite_and_in_range)
{
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 8}, \"ensemble\": {\"beta\": 0}}",
                 ": ensemble.beta: ", "expected a number in (0, 1000]", "got 0");
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 8}, \"ensemble\": {\"beta\": 1000.5}}",
                 ": ensemble.beta: ", "(0, 1000]", "got 1000.5");
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 8}, \"ensemble\": {\"beta\": 1e400}}",
                 ": ensemble.beta: ", "expected a number", "too large");
}

Test(preset, string_choices_list_values_and_suggest)
{
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 8}, \"algorithm\": {\"layout\": \"tild\"},"
                 " \"ensemble\": {\"beta\": 1}}",
                 ": algorithm.layout: ", "expected one of \"naive\", \"tiled\", \"msc\", \"random_site\"; got \"tild\"",
                 "did you mean \"tiled\"?");
    EXPECT_ERROR("{\"model\": {\"type\": \"Ising\", \"L\": 8}, \"ensemble\": {\"beta\": 1}}",
                 ": model.type: ", "expected one of \"ising\"", "did you mean \"ising\"?");
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 8}, \"algorithm\": {\"layout\": \"checkerboard\"},"
                 " \"ensemble\": {\"beta\": 1}}",
                 ": algorithm.layout: ", "expected one of \"naive\", \"tiled\", \"msc\", \"random_site\"; got \"checkerboard\"");
}

Test(preset, output_format_is_csv_or_hdf5)
{
    clmc_preset *preset = parse_ok(minimal_preset, NULL, 0);
    cr_expect(!clmc_preset_output(preset)->hdf5, "the default format is csv");
    clmc_preset_free(preset);
    EXPECT_OVERRIDE_ERROR("output.format=\"xml\"", ": output.format: ", "expected one of \"csv\", \"hdf5\"");
#ifdef CLMC_HAVE_HDF5
    preset = parse_ok(minimal_preset, (const char *const[]){"output.format=\"hdf5\""}, 1);
    cr_expect(clmc_preset_output(preset)->hdf5);
    clmc_preset_free(preset);
#else
    EXPECT_OVERRIDE_ERROR("output.format=\"hdf5\"", ": output.format: ", "lacks HDF5");
#endif
}

Test(preset, required_keys_must_be_present)
{
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 8}}", ": ensemble: ", "required key missing");
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\"}, \"ensemble\": {\"beta\": 1}}", ": model.L: ",
                 "required key missing");
    EXPECT_ERROR("{\"model\": {\"L\": 8}, \"ensemble\": {\"beta\": 1}}", ": model.type: ", "required key missing");
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 8}, \"ensemble\": {}}", ": ensemble.beta: ",
                 "required key missing");
}

/* ---- Syntax errors and files ----------------------------------------------- */

Test(preset, syntax_error_reports_line_and_column)
{
    EXPECT_ERROR("{\n"
                 "  \"model\": { \"type\": \"ising\", \"L\": 32 },\n"
                 "  \"ensemble\": { \"beta\": 0.44, }\n"
                 "}\n",
                 "presets/mini.json:3:31: invalid JSON", "near '0.44, }'");
    EXPECT_ERROR("{\n  \"model\": {\n    \"L\": tru\n  }\n}", "presets/mini.json:3:10: invalid JSON", "tru");
}

Test(preset, text_after_the_object_is_a_syntax_error)
{
    EXPECT_ERROR("{\"model\": {}}\n  oops", "presets/mini.json:2:3: invalid JSON", "oops");
}

Test(preset, empty_text_is_an_error)
{
    EXPECT_ERROR("", "presets/mini.json: ", "empty");
    EXPECT_ERROR(" \n\t ", "presets/mini.json: ", "empty");
}

static char *write_temp_preset(char *dir_template, const char *file_name, const char *text, size_t length)
{
    cr_assert_not_null(mkdtemp(dir_template), "mkdtemp failed");
    size_t size = strlen(dir_template) + strlen(file_name) + 2;
    char *path = malloc(size);
    snprintf(path, size, "%s/%s", dir_template, file_name);
    FILE *file = fopen(path, "wb");
    cr_assert_not_null(file);
    cr_assert_eq(fwrite(text, 1, length, file), length);
    fclose(file);
    return path;
}

static void remove_temp_preset(char *dir, char *path)
{
    unlink(path);
    rmdir(dir);
    free(path);
}

Test(preset, load_names_preset_after_the_file)
{
    char dir[] = "/tmp/clmc-preset-XXXXXX";
    char *path = write_temp_preset(dir, "ising2d-small.json", minimal_preset, strlen(minimal_preset));
    clmc_preset *preset = NULL;
    cr_assert_eq(clmc_preset_load(path, (const char *const[]){"model.L=16"}, 1, &preset), CLMC_OK, "%s",
                 clmc_error_message());
    cr_expect_str_eq(clmc_preset_string(preset, "name"), "ising2d-small");
    cr_expect_str_eq(clmc_preset_string(preset, "output.dir"), "out/ising2d-small");
    cr_expect_eq(clmc_preset_int(preset, "model.L"), 16);
    clmc_preset_free(preset);
    remove_temp_preset(dir, path);
}

static void expect_load_error(const char *path, const char *first, const char *second)
{
    clmc_preset *preset = NULL;
    cr_assert_eq(clmc_preset_load(path, NULL, 0, &preset), CLMC_ERR_INPUT);
    cr_assert_null(preset);
    const char *message = clmc_error_message();
    cr_log_info("error message: %s", message);
    cr_expect(strstr(message, first), "message lacks '%s': %s", first, message);
    cr_expect(strstr(message, second), "message lacks '%s': %s", second, message);
}

Test(preset, unreadable_file_names_path_and_reason)
{
    expect_load_error("/nonexistent/dir/preset.json", "cannot read preset '/nonexistent/dir/preset.json'",
                      "No such file or directory");
    expect_load_error("/tmp", "cannot read preset '/tmp'", "Is a directory");
}

Test(preset, empty_and_oversized_files_are_refused)
{
    char empty_dir[] = "/tmp/clmc-preset-XXXXXX";
    char *empty = write_temp_preset(empty_dir, "empty.json", "", 0);
    expect_load_error(empty, empty, "empty");
    remove_temp_preset(empty_dir, empty);

    size_t big_length = ((size_t)16 << 20) + 1;
    char *big_text = malloc(big_length);
    memset(big_text, ' ', big_length);
    big_text[0] = '{';
    big_text[big_length - 1] = '}';
    char big_dir[] = "/tmp/clmc-preset-XXXXXX";
    char *big = write_temp_preset(big_dir, "big.json", big_text, big_length);
    free(big_text);
    expect_load_error(big, big, "larger than 16 MiB");
    remove_temp_preset(big_dir, big);
}

/* ---- Overrides ---------------------------------------------------------------- */

Test(preset, overrides_change_values_with_json_or_plain_strings)
{
    const char *overrides[] = {"model.L=64", "algorithm.layout=naive", "name=\"quoted\"", "ensemble.beta=0.25",
                               "model.dim= 3 "};
    clmc_preset *preset = parse_ok(minimal_preset, overrides, 5);
    cr_expect_eq(clmc_preset_int(preset, "model.L"), 64);
    cr_expect_eq(clmc_preset_int(preset, "model.dim"), 3);
    cr_expect_str_eq(clmc_preset_string(preset, "algorithm.layout"), "naive");
    cr_expect_str_eq(clmc_preset_string(preset, "name"), "quoted");
    cr_expect_str_eq(clmc_preset_string(preset, "output.dir"), "out/quoted");
    cr_expect_float_eq(clmc_preset_number(preset, "ensemble.beta"), 0.25, 1e-15);
    clmc_preset_free(preset);
}

Test(preset, overrides_create_missing_sections)
{
    const char *overrides[] = {"ensemble.beta=2", "run.seed=7", "output.dir=results/x"};
    clmc_preset *preset = parse_ok("{\"model\": {\"type\": \"ising\", \"L\": 8}}", overrides, 3);
    cr_expect_float_eq(clmc_preset_number(preset, "ensemble.beta"), 2.0, 0.0);
    cr_expect_eq(clmc_preset_int(preset, "run.seed"), 7);
    cr_expect_eq(clmc_preset_int(preset, "run.sweeps"), 10000);
    cr_expect_str_eq(clmc_preset_string(preset, "output.dir"), "results/x");
    clmc_preset_free(preset);
}

Test(preset, overrides_are_validated_like_file_content)
{
    EXPECT_OVERRIDE_ERROR("model.L=3", ": model.L: ", "[4, 262144]", "got 3");
    EXPECT_OVERRIDE_ERROR("model.L=big", ": model.L: ", "expected an integer", "got \"big\"");
    EXPECT_OVERRIDE_ERROR("algorithm.layout=tile", ": algorithm.layout: ", "did you mean \"tiled\"?");
    EXPECT_OVERRIDE_ERROR("model.Lx=3", ": model.Lx: ", "did you mean \"L\"?");
    EXPECT_OVERRIDE_ERROR("runs.seed=3", ": runs: ", "did you mean \"run\"?");
}

Test(preset, malformed_overrides_are_named)
{
    EXPECT_OVERRIDE_ERROR("model.L", "invalid override 'model.L'", "PATH=VALUE");
    EXPECT_OVERRIDE_ERROR("=5", "invalid override '=5'", "empty path");
    EXPECT_OVERRIDE_ERROR("model..L=5", "invalid override 'model..L=5'", "empty key");
    EXPECT_OVERRIDE_ERROR("model.L.x=5", "invalid override 'model.L.x=5'", "'model.L' is not an object");
}

/* ---- Typed settings of the name, run and output sections ------------------ */

Test(preset, run_and_output_resolve_into_typed_settings)
{
    clmc_preset *preset = parse_ok(minimal_preset, NULL, 0);
    const clmc_run_settings *run = clmc_preset_run(preset);
    cr_expect_str_eq(clmc_preset_name(preset), "mini");
    cr_expect_eq(run->thermalization, 1000);
    cr_expect_eq(run->sweeps, 10000);
    cr_expect_eq(run->measure_every, 1);
    cr_expect_eq(run->seed, 42);
    cr_expect_eq(run->checkpoint_every_sweeps, 0);
    cr_expect_eq(run->checkpoint_every_seconds, 0.0);
    cr_expect_str_eq(clmc_preset_output(preset)->dir, "out/mini");
    cr_expect_not(clmc_preset_output(preset)->picture);
    clmc_preset_set_int(preset, "run.sweeps", 500);
    cr_expect_eq(clmc_preset_run(preset)->sweeps, 500);
    clmc_preset_free(preset);

    const char *overrides[] = {"run.thermalization=0", "run.sweeps=64", "run.measure_every=4",
                               "run.seed=9007199254740991", "run.checkpoint_every=\"10m\"", "output.dir=results/y",
                               "output.picture=true", "name=typed"};
    preset = parse_ok(minimal_preset, overrides, 8);
    run = clmc_preset_run(preset);
    cr_expect_str_eq(clmc_preset_name(preset), "typed");
    cr_expect_eq(run->thermalization, 0);
    cr_expect_eq(run->sweeps, 64);
    cr_expect_eq(run->measure_every, 4);
    cr_expect_eq(run->seed, 9007199254740991ULL);
    cr_expect_eq(run->checkpoint_every_sweeps, 0);
    cr_expect_eq(run->checkpoint_every_seconds, 600.0);
    cr_expect_str_eq(clmc_preset_output(preset)->dir, "results/y");
    cr_expect(clmc_preset_output(preset)->picture);
    clmc_preset_free(preset);

    const char *by_sweeps[] = {"run.checkpoint_every=2500"};
    preset = parse_ok(minimal_preset, by_sweeps, 1);
    cr_expect_eq(clmc_preset_run(preset)->checkpoint_every_sweeps, 2500);
    cr_expect_eq(clmc_preset_run(preset)->checkpoint_every_seconds, 0.0);
    clmc_preset_free(preset);
}

/* ---- Hostile input (issue 26) ------------------------------------------- */

#define ISING_BODY "\"model\": {\"type\": \"ising\", \"L\": 16}, \"ensemble\": {\"beta\": 0.4}"

/* Strings reach result.json: every key and string must be valid UTF-8. */
Test(preset, invalid_utf8_is_refused_naming_the_key)
{
    EXPECT_ERROR("{\"name\": \"a\xff\xfe" "b\", " ISING_BODY "}", "name", "invalid UTF-8");
    EXPECT_ERROR("{" ISING_BODY ", \"output\": {\"dir\": \"out/\xc0\xaf\"}}", "output.dir", "invalid UTF-8");
    EXPECT_ERROR("{" ISING_BODY ", \"output\": {\"dir\": \"\xed\xa0\x80\"}}", "output.dir", "invalid UTF-8");
    EXPECT_ERROR("{" ISING_BODY ", \"run\": {\"s\xe2\x82\": 1}}", "run", "invalid UTF-8");
    EXPECT_OVERRIDE_ERROR("output.dir=\xf5\x80\x80\x80", "output.dir", "invalid UTF-8");
    clmc_preset *preset = parse_ok("{\"name\": \"\xc3\xa9t\xc3\xa9 \xe2\x88\x9e\", " ISING_BODY "}", NULL, 0);
    cr_expect_str_eq(clmc_preset_output(preset)->dir, "out/\xc3\xa9t\xc3\xa9 \xe2\x88\x9e");
    clmc_preset_free(preset);
}

/* The default output.dir is out/<name>: the name must stay one directory there. */
Test(preset, names_that_leave_out_are_refused)
{
    const char *names[] = {"..", ".", "../../etc", "a/b", "a\\\\b", "a\\nb", "tab\\there", "bell\\u0007"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "{\"name\": \"%s\", " ISING_BODY "}", names[i]);
        EXPECT_ERROR(text, "name");
    }
    clmc_preset *preset = parse_ok("{\"name\": \"a..b-1.2_x\", " ISING_BODY "}", NULL, 0);
    cr_expect_str_eq(clmc_preset_output(preset)->dir, "out/a..b-1.2_x");
    clmc_preset_free(preset);
}

Test(preset, measure_every_beyond_sweeps_is_refused)
{
    EXPECT_ERROR("{" ISING_BODY ", \"run\": {\"sweeps\": 10, \"measure_every\": 20}}", "run.measure_every", "20",
                 "run.sweeps", "10");
    clmc_preset *preset = parse_ok("{" ISING_BODY ", \"run\": {\"sweeps\": 10, \"measure_every\": 10}}", NULL, 0);
    cr_expect_eq(clmc_preset_run(preset)->measure_every, 10);
    clmc_preset_free(preset);
}

/* Integer keys take digits only: "1e3" and "16.0" are refused, whatever their value. */
Test(preset, integers_written_with_exponent_or_fraction_are_refused)
{
    EXPECT_ERROR("{" ISING_BODY ", \"run\": {\"sweeps\": 1e3}}", "run.sweeps", "fraction or an exponent");
    EXPECT_ERROR("{\"model\": {\"type\": \"ising\", \"L\": 16.0}, \"ensemble\": {\"beta\": 0.4}}", "model.L",
                 "fraction or an exponent");
    EXPECT_ERROR("{" ISING_BODY ", \"run\": {\"seed\": 5E0}}", "run.seed", "fraction or an exponent");
    EXPECT_ERROR("{" ISING_BODY ", \"run\": {\"checkpoint_every\": 1e2}}", "run.checkpoint_every", "digits");
    EXPECT_OVERRIDE_ERROR("run.sweeps=2e3", "run.sweeps", "fraction or an exponent");
    /* Numbers elsewhere (strings included) do not confuse the token count. */
    clmc_preset *preset = parse_ok("{\"name\": \"x-1.5e3\", \"model\": {\"type\": \"ising\", \"L\": 16}, "
                                   "\"ensemble\": {\"beta\": 4.4e-1}, \"run\": {\"sweeps\": 300, \"seed\": -0}}",
                                   NULL, 0);
    cr_expect_eq(clmc_preset_run(preset)->sweeps, 300);
    cr_expect_float_eq(clmc_preset_number(preset, "ensemble.beta"), 0.44, 1e-15);
    clmc_preset_free(preset);
}

Test(preset, nesting_depth_error_names_the_limit_and_where)
{
    size_t depth = 1200;
    char *text = malloc(2 * depth + 64);
    size_t n = (size_t)sprintf(text, "{\"model\": {\"x\": ");
    for (size_t i = 0; i < depth; i++) text[n++] = '[';
    for (size_t i = 0; i < depth; i++) text[n++] = ']';
    strcpy(text + n, "}}");
    /* The 1001st nested value opens at column 16 + 999 + 1 (two objects, then 998 lists). */
    EXPECT_ERROR(text, "mini.json:1:1015", "nested deeper than the limit of 1000");
    free(text);
}

/* The checkpoint byte format without a device: round trip, and every
 * truncation and every single-bit flip of a small checkpoint refused. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/checkpoint.h"
#include "output/state_blob.h"
#include "clmc/preset.h"

static uint32_t config_at[6] = {3, 1, 2, 0, 5, 4};
static int32_t heading[6] = {1, -1, 0, 0, 1, -1};
static uint64_t accepted[3] = {7, 8, 0}, attempted[3] = {10, 10, 0};
static uint64_t sweeps[2] = {101, 102};
static double rows[2 * 12];
static unsigned char blob[37];

static clmc_checkpoint sample(void)
{
    for (int i = 0; i < 24; i++) rows[i] = i * 0.1 - 1.0 / 3.0;
    for (int i = 0; i < 37; i++) blob[i] = (unsigned char)(i * 7);
    return (clmc_checkpoint){.engine_version = "0.1.0", .device_name = "test device",
                             .preset_json = "{\"model\": {\"type\": \"ising\"}}", .next_sweep = 102,
                             .n_configs = 6, .n_temperatures = 3, .config_at = config_at, .heading = heading,
                             .accepted = accepted, .attempted = attempted, .round_trips = 4, .exchanges = 10,
                             .n_rows = 2, .row_values = 12, .sweeps = sweeps, .rows = rows, .model_blob = blob,
                             .model_bytes = sizeof blob};
}

Test(checkpoint_format, round_trip)
{
    clmc_checkpoint in = sample(), out;
    unsigned char *bytes = NULL;
    size_t length = 0;
    cr_assert_eq(clmc_checkpoint_encode(&in, &bytes, &length), CLMC_OK);
    cr_assert_eq(clmc_checkpoint_decode(bytes, length, &out), CLMC_OK, "%s", clmc_error_message());
    printf("checkpoint of %zu bytes decoded\n", length);
    cr_expect_str_eq(out.engine_version, in.engine_version);
    cr_expect_str_eq(out.device_name, in.device_name);
    cr_expect_str_eq(out.preset_json, in.preset_json);
    cr_expect_eq(out.next_sweep, in.next_sweep);
    cr_expect_eq(out.n_configs, 6);
    cr_expect_eq(out.n_temperatures, 3);
    cr_expect_arr_eq(out.config_at, config_at, sizeof config_at);
    cr_expect_arr_eq(out.heading, heading, sizeof heading);
    cr_expect_arr_eq(out.accepted, accepted, sizeof accepted);
    cr_expect_arr_eq(out.attempted, attempted, sizeof attempted);
    cr_expect_eq(out.round_trips, 4);
    cr_expect_eq(out.exchanges, 10);
    cr_expect_eq(out.n_rows, 2);
    cr_expect_eq(out.row_values, 12);
    cr_expect_arr_eq(out.sweeps, sweeps, sizeof sweeps);
    cr_expect_arr_eq(out.rows, rows, sizeof rows, "doubles bit for bit");
    cr_expect_eq(out.model_bytes, sizeof blob);
    cr_expect_arr_eq(out.model_blob, blob, sizeof blob);
    clmc_checkpoint_free(&out);
    free(bytes);
}

/* The optional ensemble section (ENSM, population annealing): round trip,
 * absent when empty, and every truncation of a file with it refused. */
Test(checkpoint_format, ensemble_section_round_trip)
{
    unsigned char ensemble[19];
    for (int i = 0; i < 19; i++) ensemble[i] = (unsigned char)(200 - i);
    clmc_checkpoint in = sample(), out;
    in.ensemble_blob = ensemble;
    in.ensemble_bytes = sizeof ensemble;
    unsigned char *bytes = NULL, *plain = NULL;
    size_t length = 0, plain_length = 0;
    cr_assert_eq(clmc_checkpoint_encode(&in, &bytes, &length), CLMC_OK);
    cr_assert_eq(clmc_checkpoint_decode(bytes, length, &out), CLMC_OK, "%s", clmc_error_message());
    cr_expect_eq(out.ensemble_bytes, sizeof ensemble);
    cr_expect_arr_eq(out.ensemble_blob, ensemble, sizeof ensemble);
    cr_expect_arr_eq(out.model_blob, blob, sizeof blob);
    clmc_checkpoint_free(&out);
    in = sample();
    cr_assert_eq(clmc_checkpoint_encode(&in, &plain, &plain_length), CLMC_OK);
    cr_expect_eq(length, plain_length + 12 + sizeof ensemble, "ENSM: tag, length and the blob");
    cr_assert_eq(clmc_checkpoint_decode(plain, plain_length, &out), CLMC_OK);
    cr_expect(out.ensemble_blob == NULL && out.ensemble_bytes == 0, "no ensemble section without a blob");
    clmc_checkpoint_free(&out);
    size_t refused = 0;
    for (size_t n = 0; n < length; n++)
        refused += clmc_checkpoint_decode(bytes, n, &out) == CLMC_ERR_INPUT;
    printf("with an ensemble section: %zu bytes, %zu of %zu truncations refused\n", length, refused, length);
    cr_expect_eq(refused, length);
    free(bytes);
    free(plain);
}

Test(checkpoint_format, every_truncation_refused)
{
    clmc_checkpoint in = sample(), out;
    unsigned char *bytes = NULL;
    size_t length = 0;
    cr_assert_eq(clmc_checkpoint_encode(&in, &bytes, &length), CLMC_OK);
    size_t refused = 0;
    for (size_t n = 0; n < length; n++) {
        unsigned char *copy = malloc(n ? n : 1); /* exact size: reads past the end would show under ASan/valgrind */
        memcpy(copy, bytes, n);
        clmc_status status = clmc_checkpoint_decode(copy, n, &out);
        refused += status == CLMC_ERR_INPUT;
        cr_expect_eq(status, CLMC_ERR_INPUT, "truncated to %zu of %zu bytes: status %d", n, length, (int)status);
        free(copy);
    }
    printf("%zu of %zu truncations refused\n", refused, length);
    free(bytes);
}

Test(checkpoint_format, every_bit_flip_refused)
{
    clmc_checkpoint in = sample(), out;
    unsigned char *bytes = NULL;
    size_t length = 0;
    cr_assert_eq(clmc_checkpoint_encode(&in, &bytes, &length), CLMC_OK);
    size_t refused = 0;
    for (size_t bit = 0; bit < 8 * length; bit++) {
        bytes[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        clmc_status status = clmc_checkpoint_decode(bytes, length, &out);
        bytes[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        refused += status == CLMC_ERR_INPUT;
        cr_expect_eq(status, CLMC_ERR_INPUT, "bit %zu flipped: status %d", bit, (int)status);
    }
    printf("%zu of %zu single-bit flips refused\n", refused, 8 * length);
    free(bytes);
}

Test(checkpoint_format, other_format_version_refused)
{
    clmc_checkpoint in = sample(), out;
    unsigned char *bytes = NULL;
    size_t length = 0;
    cr_assert_eq(clmc_checkpoint_encode(&in, &bytes, &length), CLMC_OK);
    bytes[8] = CLMC_CHECKPOINT_FORMAT + 1; /* then the checksum made right again */
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i + 8 < length; i++) hash = (hash ^ bytes[i]) * 0x100000001b3ULL;
    for (int i = 0; i < 8; i++) bytes[length - 8 + i] = (unsigned char)(hash >> (8 * i));
    cr_expect_eq(clmc_checkpoint_decode(bytes, length, &out), CLMC_ERR_INPUT);
    printf("%s\n", clmc_error_message());
    cr_expect(strstr(clmc_error_message(), "format version"), "message: %s", clmc_error_message());
    free(bytes);
}

Test(checkpoint_format, every_syntax)
{
    struct { const char *text; unsigned long long sweeps; double seconds; } valid[] = {
        {"0", 0, 0}, {"1000", 1000, 0}, {"600s", 0, 600}, {"10m", 0, 600}, {"2h", 0, 7200}};
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        uint64_t sweeps;
        double seconds;
        cr_expect_null(clmc_checkpoint_every_problem(valid[i].text, &sweeps, &seconds), "%s", valid[i].text);
        cr_expect_eq(sweeps, valid[i].sweeps, "%s", valid[i].text);
        cr_expect_eq(seconds, valid[i].seconds, "%s", valid[i].text);
    }
    const char *invalid[] = {"", "-5", "10x", "1.5", "s", "1e400", "99999999999999999999", "10 s"};
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        uint64_t sweeps;
        double seconds;
        const char *problem = clmc_checkpoint_every_problem(invalid[i], &sweeps, &seconds);
        printf("\"%s\": %s\n", invalid[i], problem ? problem : "(accepted)");
        cr_expect_not_null(problem, "\"%s\" accepted", invalid[i]);
    }
}

/* The checked-in corpus (tests/fuzz/corpus/, tests/fuzz/make_corpus.py):
 * valid-* checkpoints decode, engine-version-other decodes but names another
 * engine, every other damaged one is refused; bad-* presets are refused and
 * odd-* ones (hostile but legal) parse. */
#include <dirent.h>

typedef void (*corpus_check)(const char *name, const unsigned char *bytes, size_t length);

static size_t for_each_corpus_file(const char *subdir, corpus_check check)
{
    const char *root = getenv("CLMC_FUZZ_CORPUS");
    cr_assert_not_null(root, "CLMC_FUZZ_CORPUS is not set (meson test sets it)");
    char dir[4096], path[8200];
    snprintf(dir, sizeof dir, "%s/%s", root, subdir);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "no corpus %s", dir);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        cr_assert_not_null(f, "%s", path);
        unsigned char *bytes = malloc(1 << 20);
        size_t length = fread(bytes, 1, 1 << 20, f);
        fclose(f);
        check(e->d_name, bytes, length);
        free(bytes);
        n++;
    }
    closedir(d);
    return n;
}

static void check_checkpoint_file(const char *name, const unsigned char *bytes, size_t length)
{
    clmc_checkpoint c;
    clmc_status status = clmc_checkpoint_decode(bytes, length, &c);
    printf("%-36s %s\n", name, status == CLMC_OK ? "decoded" : clmc_error_message());
    if (strncmp(name, "valid-", 6) == 0) {
        cr_expect_eq(status, CLMC_OK, "%s refused", name);
        cr_expect(status != CLMC_OK || strcmp(c.engine_version, CLMC_VERSION) == 0, "%s: engine %s", name,
                  c.engine_version);
    } else if (strncmp(name, "engine-version-", 15) == 0) {
        cr_expect(status == CLMC_OK && strcmp(c.engine_version, CLMC_VERSION) != 0, "%s", name);
    } else if (strncmp(name, "preset-unbalanced", 17) == 0) { /* well-formed file, the preset inside is not */
        clmc_preset *preset = NULL;
        cr_expect_eq(status, CLMC_OK, "%s refused", name);
        cr_expect_eq(status == CLMC_OK ? clmc_preset_parse(c.preset_json, strlen(c.preset_json), name, NULL, 0, &preset)
                                       : CLMC_ERR_INPUT, CLMC_ERR_INPUT, "%s: preset accepted", name);
        printf("%-36s preset: %.120s\n", "", clmc_error_message());
        clmc_preset_free(preset);
    } else {
        cr_expect_eq(status, CLMC_ERR_INPUT, "%s: status %d", name, (int)status);
    }
    if (status == CLMC_OK) clmc_checkpoint_free(&c);
}

static void check_preset_file(const char *name, const unsigned char *bytes, size_t length)
{
    clmc_preset *preset = NULL;
    clmc_status status = clmc_preset_parse((const char *)bytes, length, name, NULL, 0, &preset);
    printf("%-36s %.160s\n", name, status == CLMC_OK ? "accepted" : clmc_error_message());
    if (strncmp(name, "bad-", 4) == 0) cr_expect_eq(status, CLMC_ERR_INPUT, "%s: status %d", name, (int)status);
    else cr_expect_eq(status, CLMC_OK, "%s refused", name);
    clmc_preset_free(preset);
}

Test(checkpoint_format, corpus_checkpoints)
{
    cr_expect_geq(for_each_corpus_file("checkpoint", check_checkpoint_file), 10);
}

Test(checkpoint_format, corpus_presets)
{
    cr_expect_geq(for_each_corpus_file("preset", check_preset_file), 20);
}

/* A forged buffer size (2^64 - 1) is called damaged, not printed as a size. */
Test(checkpoint_format, damaged_blob_size_is_named_not_printed)
{
    unsigned char blob[16];
    memset(blob, 0xff, 8);
    memset(blob + 8, 0, 8);
    clmc_blob_reader r = clmc_blob_reader_of(blob, sizeof blob);
    cr_expect_null(clmc_blob_get_buffer(&r, 8, "the spins"));
    cr_assert_neq(clmc_blob_end(&r), CLMC_OK);
    const char *message = clmc_error_message();
    printf("%s\n", message);
    cr_expect(strstr(message, "the spins") && strstr(message, "damaged"), "%s", message);
    cr_expect(!strstr(message, "18446744073709551615"), "the forged size is printed: %s", message);
}

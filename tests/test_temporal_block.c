/* algorithm.sweeps_per_launch (docs/models/ising.md#temporal-blocking-several-sweeps-per-launch):
 * temporal blocking (blocks with a halo in local memory, k sweeps per launch,
 * the blocks' own sites written to a second buffer) gives series.csv and the
 * final configurations bit for bit equal to the layout's ordinary kernels:
 * 2D naive with k = 1, 2, 3 over two block sizes (16 dividing L = 48; 12 on
 * L = 50, neither a multiple of 8 nor dividing L, so box rows start off the
 * block and octets straddle the periodic wrap), one block holding the whole
 * lattice (its box wraps onto itself), tiled with three tile colours and
 * multi-hit, 3D naive (Philox 4x32-7; and a box of more octets than a
 * work-group has items) and tiled, msc (bands of whole rows: the last band
 * shorter, work-groups of 32 items with several rounds between the steps
 * that finish the tied words; a halo deeper than L), several configurations,
 * parallel tempering, population annealing, a resumed run; the kernel in
 * colour planes (naive, and tiled with tiles of 8 and 16 in two tile colours,
 * one and two hits) where L and the block allow it, the per-site kernel
 * elsewhere, each case stating which it expects; the automatic choice on
 * GPUs (its table, against an H200's reported limits); bad input exits 2
 * naming the key. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/preset.h"
#include "models/ising/ising_blocked.h"
#include "physics.h"
#include "rerun.h"
#include "testenv.h"

static const char *fnv_of(const cJSON *result)
{
    const cJSON *hash = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "checks"), "configuration_fnv1a");
    cr_assert(cJSON_IsString(hash));
    return hash->valuestring;
}

/* performance.temporal_blocking of run DIR/NAME (result parsed into *result). */
static const cJSON *blocking_record(const char *dir, const char *name, cJSON **result)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    *result = test_load_result(path);
    cr_assert_not_null(*result, "%s: no result.json", path);
    const cJSON *record = cJSON_GetObjectItem(cJSON_GetObjectItem(*result, "performance"), "temporal_blocking");
    cr_assert_not_null(record, "%s: no performance.temporal_blocking", path);
    return record;
}

typedef struct {
    char label[32];
    char json[640]; /* inline: parameters cross a process boundary */
    int block;
    int sweeps[3]; /* the k compared with the ordinary run; 0 ends the list */
    bool rounds;   /* the box has more octets than a work-group has items: several per item */
    bool planes;   /* the kernel in colour planes (performance.temporal_blocking.planes) is expected */
} blocking_case;

/* Runs the case with the ordinary kernels (sweeps_per_launch 0, resident off)
 * and with temporal blocking for each k; expects the blocked path taken with
 * more than one sweep per launch for k > 1 and the same series and final
 * configurations. */
static void expect_blocked_identical(const blocking_case *c)
{
    char *dir = rerun_preset_dir(c->label, c->json), preset[4200];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    char *ordinary = rerun_file(dir, preset, "ordinary", "--set algorithm.resident=off", "series.csv");
    cJSON *reference;
    const cJSON *off = blocking_record(dir, "ordinary", &reference);
    cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(off, "used")), "%s: blocked with sweeps_per_launch 0", c->label);
    int rows = 0;
    for (const char *at = ordinary; *at; at++) rows += *at == '\n';
    cr_expect_gt(rows, 3, "%s: a series", c->label);
    for (int i = 0; i < 3 && c->sweeps[i]; i++) {
        char name[16], overrides[128];
        snprintf(name, sizeof name, "k%d", c->sweeps[i]);
        snprintf(overrides, sizeof overrides, "--set algorithm.sweeps_per_launch=%d --set algorithm.block=%d",
                 c->sweeps[i], c->block);
        char *blocked = rerun_file(dir, preset, name, overrides, "series.csv");
        cJSON *result;
        const cJSON *on = blocking_record(dir, name, &result);
        cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(on, "used")), "%s: not blocked", c->label);
        double per_launch = cJSON_GetObjectItem(on, "sweeps_per_launch")->valuedouble;
        printf("%s k = %d, block %d: %d series lines, halo %d, %.2f sweeps per launch, %d items per group; fnv1a "
               "blocked %s, ordinary %s\n", c->label, c->sweeps[i], c->block, rows - 1,
               cJSON_GetObjectItem(on, "halo")->valueint, per_launch, cJSON_GetObjectItem(on, "work_group")->valueint,
               fnv_of(result), fnv_of(reference));
        if (c->sweeps[i] > 1) cr_expect_gt(per_launch, 1.0, "%s: %g sweeps per launch", c->label, per_launch);
        cr_expect_eq(cJSON_IsTrue(cJSON_GetObjectItem(on, "planes")), c->planes, "%s: planes %s, expected %s",
                     c->label, cJSON_IsTrue(cJSON_GetObjectItem(on, "planes")) ? "true" : "false",
                     c->planes ? "true" : "false");
        double octets = cJSON_GetObjectItem(on, "box_bytes")->valuedouble / 8;
        if (c->rounds)
            cr_expect_gt(octets, cJSON_GetObjectItem(on, "work_group")->valuedouble, "%s: %g octets, one per item",
                         c->label, octets);
        cr_expect_str_eq(blocked, ordinary, "%s k = %d: series.csv differs from the ordinary kernels'", c->label,
                         c->sweeps[i]);
        cr_expect_str_eq(fnv_of(result), fnv_of(reference), "%s k = %d: final configurations differ", c->label,
                         c->sweeps[i]);
        cJSON_Delete(result);
        free(blocked);
    }
    cJSON_Delete(reference);
    free(ordinary);
    free(dir);
}

static blocking_case make_case(const char *label, int dim, int L, const char *algorithm, const char *ensemble,
                               int block, int k0, int k1, int k2, bool planes)
{
    blocking_case c = {.block = block, .sweeps = {k0, k1, k2}, .planes = planes};
    snprintf(c.label, sizeof c.label, "%s", label);
    snprintf(c.json, sizeof c.json,
             "{\"model\": {\"type\": \"ising\", \"dim\": %d, \"L\": %d}, \"algorithm\": {%s}, \"ensemble\": {%s},"
             " \"run\": {\"thermalization\": 7, \"sweeps\": 42, \"measure_every\": 6, \"seed\": 91}}",
             dim, L, algorithm, ensemble);
    return c;
}

ParameterizedTestParameters(temporal_block, equals_ordinary_kernels)
{
    static blocking_case cases[13];
    const char *two = "\"type\": \"independent\", \"betas\": [0.3, 0.44], \"copies\": 2";
    const char *naive = "\"layout\": \"naive\"";
    int n = 0;
    /* Each k is a program of its own (the halo is compiled in): k = 1 and 3 on
     * L = 48 (3 also tempering's, population annealing's and the resume's:
     * one ordinary and one blocked program for all of them), 2 and 3 on
     * L = 50 (box rows of 24 and 32 bytes).  L and the block multiples of 8
     * (naive; tiled with tiles of a multiple of 8 in two tile colours) take the
     * kernel in colour planes (TB_PLANES), the others the per-site kernel. */
    cases[n++] = make_case("2d-naive-b16", 2, 48, naive, two, 16, 1, 3, 0, true);
    cases[n++] = make_case("2d-naive-L50-b12", 2, 50, naive, "\"beta\": 0.44", 12, 2, 3, 0, false);
    cases[n++] = make_case("2d-one-block-wraps", 2, 48, naive, "\"beta\": 0.44", 48, 3, 0, 0, true);
    cases[n++] = make_case("2d-tiled-t8-odd", 2, 24, "\"layout\": \"tiled\", \"tile\": 8", "\"beta\": 0.44", 10, 2, 0, 0,
                           false);
    cases[n++] = make_case("2d-tiled-t4-h2", 2, 16, "\"layout\": \"tiled\", \"tile\": 4, \"hits\": 2", two, 8, 2, 0, 0,
                           false);
    /* Planes of tiles of 8 and 16 (a phase's words listed per tile colour):
     * blocks of 16 on L = 64 with tiles of 8 (k = 1 and 3: 3 x 4 phases, a
     * halo of 12), and tiles of 16 with 2 hits on blocks of 24 (the last
     * block 16 wide; 8 phases a sweep). */
    cases[n++] = make_case("2d-tiled-t8-planes", 2, 64, "\"layout\": \"tiled\", \"tile\": 8", two, 16, 1, 3, 0, true);
    cases[n++] = make_case("2d-tiled-t16-h2-planes", 2, 64, "\"layout\": \"tiled\", \"tile\": 16, \"hits\": 2",
                           "\"beta\": 0.44", 24, 1, 0, 0, true);
    cases[n++] = make_case("3d-naive-philox7", 3, 12, "\"layout\": \"naive\", \"rng\": \"philox4x32_7\"",
                           "\"beta\": 0.2216", 5, 2, 0, 0, false);
    /* 6 x 36 x 36 octets beyond a work-group of 256 items (planes: 31 rounds, the draws not kept). */
    cases[n] = make_case("3d-naive-rounds", 3, 16, naive, "\"beta\": 0.2216", 16, 5, 0, 0, true);
    cases[n++].rounds = true;
    cases[n++] = make_case("3d-tiled-t4", 3, 8, "\"layout\": \"tiled\", \"tile\": 4", "\"beta\": 0.2216", 4, 1, 0, 0,
                           false);
    cases[n++] = make_case("2d-tempering", 2, 48, naive,
                           "\"type\": \"parallel_tempering\", \"betas\": [0.35, 0.4, 0.44, 0.5], \"exchange_every\": 3",
                           16, 3, 0, 0, true);
    /* msc: L = 192, 3 words a colour row, bands of 40 rows (the last 32);
     * groups of 32 items, so the first pass of k = 3 (50 rows, 150 words)
     * takes 5 rounds, finished after 4 and at its end. */
    cases[n++] = make_case("2d-msc-L192-b40", 2, 192, "\"layout\": \"msc\", \"update_group\": 32", two, 40, 1, 3,
                           0, false);
    /* k = 20 on L = 64: a halo of 40 rows on either side of bands of 16. */
    cases[n++] = make_case("2d-msc-deep-halo", 2, 64, "\"layout\": \"msc\"",
                           "\"type\": \"parallel_tempering\", \"betas\": [0.4, 0.44, 0.5], \"exchange_every\": 21",
                           16, 20, 0, 0, false);
    return cr_make_param_array(blocking_case, cases, (size_t)n);
}

ParameterizedTest(blocking_case *c, temporal_block, equals_ordinary_kernels, .timeout = 120)
{
    expect_blocked_identical(c);
}

/* Blocks end at checkpoints too: a resumed blocked run equals the whole one
 * (k = 3 on L = 48 with block 16: the 2d-naive-b16 case's programs). */
Test(temporal_block, resumed_equals_uninterrupted, .timeout = 120)
{
    rerun_expect_resume_identical("tblock-resume",
                                  "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 48}, \"algorithm\": "
                                  "{\"layout\": \"naive\", \"sweeps_per_launch\": 3, \"block\": 16}, \"ensemble\": "
                                  "{\"beta\": 0.44}, \"run\": {\"thermalization\": 5, \"sweeps\": 50, \"measure_every\": 6, "
                                  "\"seed\": 3, \"checkpoint_every\": 17}}");
}

/* Population annealing: theta sweeps per step in blocked launches; the same
 * observables (every step) and final members as the ordinary kernels (naive
 * L = 48, block 16, k = 3: the programs of the 2d-naive-b16 case; msc L = 64,
 * bands of 16 rows, k = 2). */
static void expect_population_annealing_identical(const char *label, const char *layout, int edge, int sweeps,
                                                  int block)
{
    char json[600], overrides[128], preset[4200];
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": %d}, \"algorithm\": {\"layout\": \"%s\", "
             "\"resident\": \"off\"}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": 16, "
             "\"beta_end\": 0.5, \"steps\": 4, \"sweeps_per_step\": 3}, \"run\": {\"seed\": 8}}",
             edge, layout);
    char *dir = rerun_preset_dir(label, json);
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    snprintf(overrides, sizeof overrides, "--set algorithm.sweeps_per_launch=%d --set algorithm.block=%d", sweeps,
             block);
    free(rerun_file(dir, preset, "blocked", overrides, "result.json"));
    free(rerun_file(dir, preset, "ordinary", "", "result.json"));
    cJSON *x, *y;
    const cJSON *on = blocking_record(dir, "blocked", &x);
    blocking_record(dir, "ordinary", &y);
    double per_launch = cJSON_GetObjectItem(on, "sweeps_per_launch")->valuedouble;
    printf("temporal blocking, population annealing, %s: %.2f sweeps per launch; fnv1a blocked %s, ordinary %s\n",
           layout, per_launch, fnv_of(x), fnv_of(y));
    cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(on, "used")));
    cr_expect_gt(per_launch, 1.0);
    cr_expect(cJSON_Compare(cJSON_GetObjectItem(x, "observables"), cJSON_GetObjectItem(y, "observables"), true),
              "%s: observables differ between the blocked and the ordinary kernels", layout);
    cr_expect_str_eq(fnv_of(x), fnv_of(y), "%s: final members differ", layout);
    cJSON_Delete(x);
    cJSON_Delete(y);
    free(dir);
}

Test(temporal_block, population_annealing_equals_ordinary, .timeout = 120)
{
    expect_population_annealing_identical("tblock-pa", "naive", 48, 3, 16);
}

Test(temporal_block, population_annealing_msc_equals_ordinary, .timeout = 120)
{
    expect_population_annealing_identical("tblock-pa-msc", "msc", 64, 2, 16);
}

#define BASE "\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 64}, \"ensemble\": {\"beta\": 0.44}, "

Test(temporal_block, bad_input_names_the_key, .timeout = 120)
{
    expect_input_error("{\"model\": {\"type\": \"ising\", \"dim\": 3, \"L\": 64}, \"ensemble\": {\"beta\": 0.2}, "
                       "\"algorithm\": {\"layout\": \"msc\", \"sweeps_per_launch\": 2}}", "tblock-msc-3d",
                       "algorithm.sweeps_per_launch");
    expect_input_error("{" BASE "\"algorithm\": {\"layout\": \"naive\", \"sweeps_per_launch\": 2, \"rng\": \"xorwow\"}}",
                       "tblock-stateful", "algorithm.sweeps_per_launch");
    expect_input_error("{" BASE "\"algorithm\": {\"layout\": \"naive\", \"sweeps_per_launch\": 2, \"resident\": \"on\"}}",
                       "tblock-resident-on", "algorithm.resident");
    expect_input_error("{" BASE "\"algorithm\": {\"layout\": \"naive\", \"block\": 16}}", "tblock-block-alone",
                       "algorithm.block");
    expect_input_error("{" BASE "\"algorithm\": {\"layout\": \"naive\", \"sweeps_per_launch\": 2, \"block\": 65}}",
                       "tblock-block-beyond-L", "algorithm.block");
    expect_input_error("{" BASE "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"copies\", "
                       "\"sweeps_per_launch\": 2}}", "tblock-random-site", "algorithm.sweeps_per_launch");
}

/* A box beyond the device's local memory (PoCL: 2 MiB; a 2D naive halo of
 * 2000 layers makes a box of 16 MB, msc bands on L = 8192 with a halo of 1200
 * rows one of 2.4 MB): exit 2 naming the key and local memory. */
Test(temporal_block, box_beyond_local_memory, .timeout = 120)
{
    const char *algorithms[] = {"{\"layout\": \"naive\", \"sweeps_per_launch\": 1000}",
                                "{\"layout\": \"msc\", \"sweeps_per_launch\": 600}"};
    const int edges[] = {64, 8192};
    for (int i = 0; i < 2; i++) {
        char *dir = test_scratch_dir(i ? "tblock-box-msc" : "tblock-box"), *output = NULL, json[400];
        cr_assert_not_null(dir);
        snprintf(json, sizeof json,
                 "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": %d}, \"ensemble\": {\"beta\": 0.44}, "
                 "\"algorithm\": %s, \"run\": {\"thermalization\": 0, \"sweeps\": 2, \"measure_every\": 1, "
                 "\"seed\": 1}}", edges[i], algorithms[i]);
        char *preset = test_write_preset(dir, json);
        int status = test_run_clmc(&output, "run '%s' --quiet --out '%s/out'", preset, dir);
        printf("box beyond local memory (%s): exit %d, %s\n", algorithms[i], status, output ? output : "");
        cr_expect_eq(status, 2);
        cr_expect(output && strstr(output, "algorithm.sweeps_per_launch") && strstr(output, "local memory"),
                  "the message names the key and local memory");
        free(output);
        free(preset);
        free(dir);
    }
}

/* The automatic choice (algorithm.sweeps_per_launch 0 on a GPU,
 * docs/models/ising.md): ising_tblock_choose and ising_tblock_plan against
 * an H200's reported limits, for every rule of the table: msc L = 256 ...
 * 16384; naive in colour planes L = 256 ... 16384 (k = 8 and blocks of 32 up
 * to L = 512, k = 8 and 64 up to 1024, else k = 4 and 128); tiled with one
 * hit L = 256 ... 2048 (k = 4 and 32 up to 512, else k = 2 and 64 or 128);
 * nothing outside those sizes, with two hits, k given, resident not "auto",
 * a device without dedicated local memory, or spins beyond an eighth of the
 * device's memory. */
typedef struct {
    const char *layout;
    int L, hits, tile;
    const char *more; /* further algorithm keys */
    bool dedicated;
    unsigned long long spin_bytes;
    int k, block; /* expected; k 0: not blocked */
} choice_case;

static void expect_choice(const choice_case *c)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": %d}, \"algorithm\": {\"layout\": \"%s\"%s%s}, "
             "\"ensemble\": {\"beta\": 0.44}, \"run\": {\"sweeps\": 10}}",
             c->L, c->layout, c->hits > 1 ? ", \"hits\": 2" : "", c->more);
    clmc_preset *p = NULL;
    cr_assert_eq(clmc_preset_parse(json, strlen(json), "choice", NULL, 0, &p), CLMC_OK, "%s", clmc_error_message());
    clmc_device_info h200 = {.name = "H200 (as reported)", .type = "GPU", .global_mem_bytes = 150754820096ULL,
                             .local_mem_bytes = 49152, .local_mem_dedicated = c->dedicated,
                             .max_alloc_bytes = 37688705024ULL, .max_work_group_size = 1024, .compute_units = 132};
    ising_tblock t = {0};
    bool msc = strcmp(c->layout, "msc") == 0;
    ising_tblock_choose(&t, p, &h200, c->spin_bytes, msc, c->tile, c->hits);
    int k = (int)clmc_preset_int(p, "algorithm.sweeps_per_launch"), block = (int)clmc_preset_int(p, "algorithm.block");
    cr_assert_eq(ising_tblock_plan(&t, p, &h200, 2, c->L, msc ? 2 : 2 * (c->tile ? 2 : 1) * c->hits, msc, !msc,
                                   c->tile, 0),
                 CLMC_OK, "%s", clmc_error_message());
    printf("%s L = %d hits %d%s: k = %d, block %d, automatic %d, planes %d (expected k = %d, block %d)\n", c->layout,
           c->L, c->hits, c->more, k, block, t.automatic, t.planes, c->k, c->block);
    if (c->k == 0 && strstr(c->more, "sweeps_per_launch") == NULL) {
        cr_expect_eq(k, 0, "%s L = %d: blocked automatically (k = %d)", c->layout, c->L, k);
        cr_expect(!t.used && !t.automatic, "%s L = %d: blocking used", c->layout, c->L);
    } else if (c->k > 0) {
        cr_expect(t.used && t.automatic, "%s L = %d: not chosen automatically", c->layout, c->L);
        cr_expect_eq(k, c->k, "%s L = %d: k = %d, expected %d", c->layout, c->L, k, c->k);
        cr_expect_eq(block, c->block, "%s L = %d: block %d, expected %d", c->layout, c->L, block, c->block);
        cr_expect_eq(t.planes, !msc, "%s L = %d: planes %d", c->layout, c->L, t.planes);
    } else {
        cr_expect(!t.automatic, "%s L = %d: a given sweeps_per_launch taken as automatic", c->layout, c->L);
    }
    clmc_preset_free(p);
}

Test(temporal_block, automatic_choice_follows_the_rule)
{
    const unsigned long long small = 1ULL << 20, large = 150754820096ULL / 4;
    const choice_case cases[] = {
        {"msc", 256, 1, 0, "", true, small, 8, 8},          {"msc", 1024, 1, 0, "", true, small, 6, 8},
        {"msc", 2048, 1, 0, "", true, small, 4, 16},        {"msc", 4096, 1, 0, "", true, small, 2, 16},
        {"msc", 8192, 1, 0, "", true, small, 2, 16},        {"msc", 16384, 1, 0, "", true, small, 1, 8},
        {"msc", 128, 1, 0, "", true, small, 0, 0},
        {"naive", 128, 1, 0, "", true, small, 0, 0},        {"naive", 256, 1, 0, "", true, small, 8, 32},
        {"naive", 512, 1, 0, "", true, small, 8, 32},       {"naive", 1024, 1, 0, "", true, small, 8, 64},
        {"naive", 2048, 1, 0, "", true, small, 4, 128},     {"naive", 16384, 1, 0, "", true, small, 4, 128},
        {"naive", 32768, 1, 0, "", true, small, 0, 0},      {"tiled", 256, 1, 16, ", \"tile\": 16", true, small, 4, 32},
        {"tiled", 1024, 1, 16, ", \"tile\": 16", true, small, 4, 96},
        {"tiled", 2048, 1, 16, ", \"tile\": 16", true, small, 4, 128},
        {"tiled", 4096, 1, 16, ", \"tile\": 16", true, small, 0, 0},
        {"tiled", 1024, 2, 16, ", \"tile\": 16", true, small, 0, 0},
        {"naive", 2048, 1, 0, "", false, small, 0, 0},      {"naive", 2048, 1, 0, "", true, large, 0, 0},
        {"naive", 2048, 1, 0, ", \"resident\": \"off\"", true, small, 0, 0},
        {"naive", 2048, 1, 0, ", \"sweeps_per_launch\": 2, \"block\": 64", true, small, -1, 64},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) expect_choice(&cases[i]);
}

/* algorithm.resident (docs/models/ising.md): the resident update (one
 * work-group per configuration in local memory, or several per work-group for
 * msc, many sweeps per launch) gives series.csv and the final configurations
 * bit for bit equal to the layout's ordinary kernels (algorithm.resident
 * "off"): 2D and 3D, naive and tiled (2D tile edges 4, 8 and 10, 3D 4; an odd
 * number of tiles per edge among them: three tile colours), msc with 1, 3 and
 * 4 configurations per work-group (a partly filled last group, several words
 * per row, several words per work-item), multi-hit, several configurations,
 * parallel tempering, Philox 4x32-7, population annealing, a resumed run, the
 * update in colour planes (tiles of 8 and 16, naive, rounds of words); a configuration too large for local memory falls back
 * to the ordinary kernels and says so in result.json; "auto" takes the
 * resident path exactly where local memory is dedicated (GPUs, not PoCL). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ising_exact.h"
#include "physics.h"
#include "rerun.h"
#include "testenv.h"

/* performance.resident of a run in DIR/NAME. */
static const cJSON *resident_record(const char *dir, const char *name, cJSON **result)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    *result = test_load_result(path);
    cr_assert_not_null(*result, "%s: no result.json", path);
    const cJSON *record = cJSON_GetObjectItem(cJSON_GetObjectItem(*result, "performance"), "resident");
    cr_assert_not_null(record, "%s: no performance.resident", path);
    return record;
}

static const char *fnv_of(const cJSON *result)
{
    const cJSON *hash = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "checks"), "configuration_fnv1a");
    cr_assert(cJSON_IsString(hash));
    return hash->valuestring;
}

/* Runs `json` with algorithm.resident "on" (the resident path wherever a
 * configuration fits, local memory emulated or not: PoCL) and "off"; expects
 * the resident path taken (more than one sweep per launch) and refused, and
 * equal series and final configuration hashes. */
static void expect_resident_identical(const char *label, const char *json, int planes)
{
    char *dir = rerun_preset_dir(label, json), preset[4200];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    char *a = rerun_file(dir, preset, "on", "--set algorithm.resident=on", "series.csv");
    char *b = rerun_file(dir, preset, "off", "--set algorithm.resident=off", "series.csv");
    cJSON *x, *y;
    const cJSON *on = resident_record(dir, "on", &x), *off = resident_record(dir, "off", &y);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(on, "used")), "%s: resident path not taken", label);
    double per_launch = cJSON_GetObjectItem(on, "sweeps_per_launch")->valuedouble;
    cr_expect_gt(per_launch, 1.0, "%s: %g sweeps per launch", label, per_launch);
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(off, "used")), "%s: resident path taken with \"off\"", label);
    /* naive and tiled: the update in colour planes exactly where the case expects it. */
    if (planes >= 0) {
        const cJSON *used = cJSON_GetObjectItem(on, "planes");
        cr_expect(cJSON_IsBool(used) && cJSON_IsTrue(used) == (planes == 1), "%s: performance.resident.planes %s, "
                  "expected %s", label, cJSON_IsTrue(used) ? "true" : "false", planes ? "true" : "false");
    }
    int rows = 0;
    for (const char *c = a; *c; c++) rows += *c == '\n';
    printf("%s: %d series lines, %.2f sweeps per launch, %d items per group; fnv1a resident %s, ordinary %s\n",
           label, rows - 1, per_launch, cJSON_GetObjectItem(on, "work_group")->valueint, fnv_of(x), fnv_of(y));
    cr_expect_gt(rows, 3, "%s: a series", label);
    cr_expect_str_eq(a, b, "%s: series.csv differs between the resident and the ordinary kernels", label);
    cr_expect_str_eq(fnv_of(x), fnv_of(y), "%s: final configurations differ", label);
    cJSON_Delete(x);
    cJSON_Delete(y);
    free(a);
    free(b);
    free(dir);
}

typedef struct {
    char label[32];
    char json[640]; /* inline: parameters cross a process boundary */
    int planes;     /* 1: the update in colour planes expected, 0: the per-site kernel, -1: msc */
} resident_case;

static resident_case make_case(const char *label, int dim, int L, const char *algorithm, const char *ensemble)
{
    resident_case c;
    snprintf(c.label, sizeof c.label, "%s", label);
    c.planes = strstr(algorithm, "msc") ? -1 : 0;
    snprintf(c.json, sizeof c.json,
             "{\"model\": {\"type\": \"ising\", \"dim\": %d, \"L\": %d}, \"algorithm\": {%s}, \"ensemble\": {%s},"
             " \"run\": {\"thermalization\": 7, \"sweeps\": 60, \"measure_every\": 4, \"seed\": 91}}",
             dim, L, algorithm, ensemble);
    return c;
}

/* A naive or tiled case that takes the update in colour planes (L a multiple
 * of 8; naive, or tiles of a multiple of 8 in two tile colours). */
static resident_case planes(resident_case c)
{
    c.planes = 1;
    return c;
}

ParameterizedTestParameters(resident, equals_ordinary_kernels)
{
    /* Each distinct lattice, tile, generator and msc grouping is a program
     * pair (resident and ordinary) of its own, most of the suite's time on
     * PoCL: the cases share them where a feature needs no lattice of its own
     * (tempering on the odd t8 lattice, 3D hits 2 on the odd t4 one, the
     * partial octet and the rounds in one L = 190, msc tempering with the
     * L = 192 grouping). */
    static resident_case cases[20];
    const char *three = "\"type\": \"independent\", \"betas\": [0.3, 0.44, 0.7], \"copies\": 2";
    const char *three_3d = "\"type\": \"independent\", \"betas\": [0.18, 0.2216, 0.3], \"copies\": 2";
    int n = 0;
    cases[n++] = planes(make_case("2d-naive-philox7", 2, 16, "\"layout\": \"naive\", \"rng\": \"philox4x32_7\"", three));
    cases[n++] = make_case("2d-tiled-t4-h2", 2, 16, "\"layout\": \"tiled\", \"tile\": 4, \"hits\": 2", three);
    cases[n++] = make_case("2d-tiled-t8-odd", 2, 24, "\"layout\": \"tiled\", \"tile\": 8", three); /* 3 tiles per edge */
    cases[n++] = make_case("2d-tempering", 2, 24, "\"layout\": \"tiled\", \"tile\": 8",
                           "\"type\": \"parallel_tempering\", \"betas\": [0.35, 0.4, 0.44, 0.5], \"exchange_every\": 3");
    cases[n++] = planes(make_case("3d-naive", 3, 8, "\"layout\": \"naive\"", three_3d));
    cases[n++] = make_case("3d-tiled-t4-odd-h2", 3, 12, "\"layout\": \"tiled\", \"tile\": 4, \"hits\": 2", three_3d);
    /* L = 190: 24 octets per row, the last partial (6 sites), x 190 rows = 4560
     * exceed a work-group of 4096 (PoCL) or 1024 items: several per item, each
     * phase drawing anew (tiled: tile 10, 19 tiles per edge, three tile colours,
     * hits 3). */
    cases[n++] = make_case("2d-naive-L190-rounds", 2, 190, "\"layout\": \"naive\"", "\"beta\": 0.44");
    cases[n++] = make_case("2d-tiled-t10-h3-L190-rounds", 2, 190, "\"layout\": \"tiled\", \"tile\": 10, \"hits\": 3",
                           "\"beta\": 0.44");
    /* The update in colour planes (RESIDENT_PLANES: L a multiple of 8, naive, or tiles of a
     * multiple of 8 in two tile colours; the cases above with L = 16 naive and 3D L = 8
     * naive take it too): 2D tile 8 with hits 2, 3D tile 8, and rounds of words of 256
     * work-items, 3 (L = 96, tile 16: 576 words a phase, the draws kept for the second
     * parity) and 5 (L = 96 naive: 1152 words, each phase drawing anew). */
    cases[n++] = planes(make_case("2d-tiled-t8-planes-h2", 2, 32, "\"layout\": \"tiled\", \"tile\": 8, \"hits\": 2",
                                  three));
    cases[n++] = planes(make_case("3d-tiled-t8-planes", 3, 16, "\"layout\": \"tiled\", \"tile\": 8", three_3d));
    cases[n++] = planes(make_case("2d-tiled-t16-L96-planes-rounds", 2, 96, "\"layout\": \"tiled\", \"tile\": 16",
                                  "\"beta\": 0.44"));
    cases[n++] = planes(make_case("2d-naive-L96-planes-rounds", 2, 96, "\"layout\": \"naive\"", "\"beta\": 0.44"));
    /* msc: 6 configurations, 4 per group (auto; the second group half full); 3 per group
     * at L = 192 (3 words per row, 1728 words in 7 rounds of 256 items, the last partial;
     * tempering: 4 temperatures, the second group a third full); 3D L = 64: one per group,
     * 16 rounds. */
    cases[n++] = make_case("2d-msc-L64", 2, 64, "\"layout\": \"msc\"", three);
    cases[n++] = make_case("2d-msc-L192-c3-philox7", 2, 192,
                           "\"layout\": \"msc\", \"resident_configs\": 3, \"rng\": \"philox4x32_7\"", three);
    cases[n++] = make_case("3d-msc-L64", 3, 64, "\"layout\": \"msc\"", "\"beta\": 0.2216");
    cases[n++] = make_case("2d-msc-tempering", 2, 192,
                           "\"layout\": \"msc\", \"resident_configs\": 3, \"rng\": \"philox4x32_7\"",
                           "\"type\": \"parallel_tempering\", \"betas\": [0.35, 0.4, 0.44, 0.5], \"exchange_every\": 3");
    return cr_make_param_array(resident_case, cases, (size_t)n);
}

ParameterizedTest(resident_case *c, resident, equals_ordinary_kernels, .timeout = 120)
{
    expect_resident_identical(c->label, c->json, c->planes);
}

/* Blocks end at checkpoints too: a resumed resident run equals the whole one. */
Test(resident, resumed_equals_uninterrupted, .timeout = 120)
{
    rerun_expect_resume_identical("resident-resume",
                                  "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 16}, \"algorithm\": "
                                  "{\"layout\": \"tiled\", \"tile\": 4, \"resident\": \"on\"}, \"ensemble\": {\"beta\": 0.44}, \"run\": "
                                  "{\"thermalization\": 5, \"sweeps\": 50, \"measure_every\": 6, \"seed\": 3, "
                                  "\"checkpoint_every\": 17}}");
}

/* msc: 6 configurations in groups of 4, blocks cut at the checkpoints. */
Test(resident, resumed_msc_equals_uninterrupted, .timeout = 120)
{
    rerun_expect_resume_identical("resident-resume-msc",
                                  "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 64}, \"algorithm\": "
                                  "{\"layout\": \"msc\", \"resident\": \"on\"}, \"ensemble\": {\"type\": \"independent\", "
                                  "\"betas\": [0.3, 0.44, 0.7], \"copies\": 2}, \"run\": {\"thermalization\": 5, \"sweeps\": 50, "
                                  "\"measure_every\": 6, \"seed\": 3, \"checkpoint_every\": 17}}");
}

/* L = 1536 (2.4 MB of spins) exceeds any device's local memory (PoCL 2 MiB,
 * GPUs at most a few hundred KiB): the ordinary kernels run, and say why. */
Test(resident, too_large_falls_back, .timeout = 120)
{
    char *dir = rerun_preset_dir("resident-fallback",
                                 "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 1536}, \"algorithm\": "
                                 "{\"layout\": \"naive\"}, \"ensemble\": {\"beta\": 0.44}, \"run\": "
                                 "{\"thermalization\": 0, \"sweeps\": 2, \"measure_every\": 1, \"seed\": 3}}"),
         preset[4200];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    free(rerun_file(dir, preset, "run", "", "series.csv"));
    cJSON *result;
    const cJSON *record = resident_record(dir, "run", &result);
    const cJSON *reason = cJSON_GetObjectItem(record, "reason");
    printf("resident fallback at L = 1536: used %s, reason \"%s\"\n", cJSON_IsTrue(cJSON_GetObjectItem(record, "used")) ? "true" : "false",
           cJSON_IsString(reason) ? reason->valuestring : "?");
    cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(record, "used")));
    cr_expect(cJSON_IsString(reason) && strstr(reason->valuestring, "local memory"), "the reason names local memory");
    cJSON_Delete(result);
    free(dir);
}

/* "auto" on a small lattice: resident where the device's local memory is
 * dedicated (GPUs); on PoCL's emulated local memory the ordinary kernels,
 * with that reason (L = 190: the programs of the 2d-naive-L190-rounds case). */
Test(resident, auto_follows_local_memory_type, .timeout = 120)
{
    char *dir = rerun_preset_dir("resident-auto",
                                 "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 190}, \"algorithm\": "
                                 "{\"layout\": \"naive\"}, \"ensemble\": {\"beta\": 0.44}, \"run\": "
                                 "{\"thermalization\": 0, \"sweeps\": 20, \"measure_every\": 10, \"seed\": 3}}"),
         preset[4200];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    free(rerun_file(dir, preset, "run", "", "series.csv"));
    cJSON *result;
    const cJSON *record = resident_record(dir, "run", &result);
    const cJSON *reason = cJSON_GetObjectItem(record, "reason");
    const char *type = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "device"), "type")->valuestring;
    bool used = cJSON_IsTrue(cJSON_GetObjectItem(record, "used"));
    printf("resident auto on a %s device: used %s, reason \"%s\"\n", type, used ? "true" : "false",
           cJSON_IsString(reason) ? reason->valuestring : "");
    if (used) cr_expect_null(reason);
    else cr_expect(cJSON_IsString(reason) && strstr(reason->valuestring, "emulated"), "the reason names emulated local memory");
    if (strcmp(type, "CPU") == 0) cr_expect(!used, "a CPU device's local memory is emulated");
    cJSON_Delete(result);
    free(dir);
}

/* The mean energy of population annealing's last step. */
static double last_energy(const cJSON *result)
{
    const cJSON *steps = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures");
    const cJSON *energy = cJSON_GetObjectItem(cJSON_GetArrayItem(steps, cJSON_GetArraySize(steps) - 1), "energy");
    return cJSON_GetNumberValue(cJSON_GetObjectItem(energy, "mean"));
}

/* Population annealing: theta sweeps per step in one launch (msc: the
 * members' energies and magnetisations measured in it); the same
 * observables (every step) and final members as the ordinary kernels. */
static void expect_population_identical(const char *label, const char *json)
{
    char *dir = rerun_preset_dir(label, json), preset[4200];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    free(rerun_file(dir, preset, "on", "--set algorithm.resident=on", "result.json"));
    free(rerun_file(dir, preset, "off", "--set algorithm.resident=off", "result.json"));
    cJSON *x, *y;
    const cJSON *on = resident_record(dir, "on", &x);
    resident_record(dir, "off", &y);
    double per_launch = cJSON_GetObjectItem(on, "sweeps_per_launch")->valuedouble;
    printf("%s: %.2f sweeps per launch, %d configurations per group; last step energy %.6f resident, %.6f "
           "ordinary; fnv1a resident %s, ordinary %s\n", label, per_launch,
           cJSON_GetObjectItem(on, "configs_per_group")->valueint, last_energy(x), last_energy(y), fnv_of(x), fnv_of(y));
    cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(on, "used")), "%s: resident path not taken", label);
    cr_expect_gt(per_launch, 1.0);
    cr_expect(cJSON_Compare(cJSON_GetObjectItem(x, "observables"), cJSON_GetObjectItem(y, "observables"), true),
              "%s: observables differ between the resident and the ordinary kernels", label);
    cr_expect_str_eq(fnv_of(x), fnv_of(y), "%s: final members differ", label);
    cJSON_Delete(x);
    cJSON_Delete(y);
    free(dir);
}

/* Tiled members on L = 16 with tile 4 (the programs of the 2d-tiled-t4-h2 case). */
Test(resident, population_annealing_equals_ordinary, .timeout = 120)
{
    expect_population_identical("resident-pa",
                                "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 16}, \"algorithm\": "
                                "{\"layout\": \"tiled\", \"tile\": 4}, \"ensemble\": {\"type\": \"population_annealing\", "
                                "\"population\": 64, \"beta_end\": 0.5, \"steps\": 5, \"sweeps_per_step\": 3}, "
                                "\"run\": {\"seed\": 8}}");
}

/* msc members: 50 in groups of 4 (the last holds 2); 3D L = 64, one per
 * group (the programs of the equals_ordinary_kernels cases). */
Test(resident, population_annealing_msc_equals_ordinary, .timeout = 120)
{
    expect_population_identical("resident-pa-msc",
                                "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 64}, \"algorithm\": "
                                "{\"layout\": \"msc\"}, \"ensemble\": {\"type\": \"population_annealing\", "
                                "\"population\": 50, \"beta_end\": 0.5, \"steps\": 5, \"sweeps_per_step\": 3}, "
                                "\"run\": {\"seed\": 8}}");
}

/* A population of fluctuating size (nearest_integer: slots past it) and two
 * runs (a fresh start between them): the resident launch after each
 * resampling loads the members from the old buffer (the fused gather). */
Test(resident, population_annealing_msc_fluctuating_runs_equal_ordinary, .timeout = 120)
{
    expect_population_identical("resident-pa-msc-nearest",
                                "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 64}, \"algorithm\": "
                                "{\"layout\": \"msc\"}, \"ensemble\": {\"type\": \"population_annealing\", "
                                "\"population\": 50, \"beta_end\": 0.6, \"steps\": 6, \"sweeps_per_step\": 2, "
                                "\"resampling\": \"nearest_integer\", \"runs\": 2}, \"run\": {\"seed\": 9}}");
}

/* 1600 members, betas 0.125 and 0.25, seed 42: in the second step's sweeps
 * one lane of member 1343 draws a number equal to its threshold in all 32
 * bits.  The word must still be written (that lane rejects, the others as
 * decided), as the ordinary kernel does; the resident and blocked passes
 * (local_word) once left the whole word unchanged. */
Test(resident, population_annealing_msc_exact_tie_equals_ordinary, .timeout = 120)
{
    expect_population_identical("resident-pa-msc-tie",
                                "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 64}, \"algorithm\": "
                                "{\"layout\": \"msc\"}, \"ensemble\": {\"type\": \"population_annealing\", "
                                "\"population\": 1600, \"betas\": [0.125, 0.25], \"sweeps_per_step\": 3}, "
                                "\"run\": {\"seed\": 42}}");
}

Test(resident, population_annealing_msc_3d_equals_ordinary, .timeout = 120)
{
    expect_population_identical("resident-pa-msc-3d",
                                "{\"model\": {\"type\": \"ising\", \"dim\": 3, \"L\": 64}, \"algorithm\": "
                                "{\"layout\": \"msc\"}, \"ensemble\": {\"type\": \"population_annealing\", "
                                "\"population\": 6, \"beta_end\": 0.25, \"steps\": 3, \"sweeps_per_step\": 2}, "
                                "\"run\": {\"seed\": 8}}");
}

/* EA spin glass members of the naive layout (ea_naive_resident_update: quads
 * of configurations, two members each, a word per site in local memory):
 * 3D L = 4 with 13 members (7 quads, the last of one member, 2 quads a
 * work-group, one task a work-item and phase: the places found once) of
 * fluctuating number (nearest_integer: members past the new population load
 * their own slots) in two runs; 2D L = 32 (two rounds of 256 work-items a
 * phase); 3D L = 8 (one quad a work-group of 256). */
Test(resident, population_annealing_ea_naive_equals_ordinary, .timeout = 120)
{
    expect_population_identical("resident-pa-ea-l4",
                                "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4}, \"algorithm\": "
                                "{\"layout\": \"naive\"}, \"ensemble\": {\"type\": \"population_annealing\", "
                                "\"population\": 13, \"beta_end\": 2.0, \"steps\": 5, \"sweeps_per_step\": 3, "
                                "\"resampling\": \"nearest_integer\", \"runs\": 2}, \"run\": {\"seed\": 5}}");
    expect_population_identical("resident-pa-ea-2d-l32",
                                "{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 32}, \"algorithm\": "
                                "{\"layout\": \"naive\"}, \"ensemble\": {\"type\": \"population_annealing\", "
                                "\"population\": 9, \"beta_end\": 1.5, \"steps\": 3, \"sweeps_per_step\": 3}, "
                                "\"run\": {\"seed\": 11}}");
    expect_population_identical("resident-pa-ea-l8",
                                "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 8}, \"algorithm\": "
                                "{\"layout\": \"naive\"}, \"ensemble\": {\"type\": \"population_annealing\", "
                                "\"population\": 40, \"beta_end\": 2.0, \"steps\": 4, \"sweeps_per_step\": 2, "
                                "\"resampling\": \"multinomial\"}, \"run\": {\"seed\": 3}}");
}

/* Physics of the msc resident path: 10 runs of R = 300 members of L = 64
 * (groups of 4 per work-group, each step's 10 sweeps and the measurement in
 * one launch) from beta 0 to 0.25 in 25 steps (above beta_c: no critical
 * slowing down; steps of 0.01, about a standard deviation of the energy in
 * units of 1 / dbeta, keep the histograms overlapping): every fifth step's free
 * energy, energy and specific heat within 4 standard errors (from the runs)
 * of the exact L = 64 values (Ferdinand-Fisher); with algorithm.rng `rng`. */
static void expect_pa_msc_exact(const char *label, const char *rng)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 64}, \"algorithm\": {\"layout\": \"msc\", "
             "\"resident\": \"on\", \"rng\": \"%s\"}, \"ensemble\": {\"type\": \"population_annealing\", "
             "\"population\": 300, \"beta_end\": 0.25, \"steps\": 25, \"sweeps_per_step\": 10, \"runs\": 10}, "
             "\"run\": {\"seed\": 17}}",
             rng);
    char *dir = rerun_preset_dir(label, json), preset[4200];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    free(rerun_file(dir, preset, "run", "", "result.json"));
    cJSON *result;
    const cJSON *record = resident_record(dir, "run", &result);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(record, "used")), "resident path not taken");
    const cJSON *steps = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures");
    cr_assert_eq(cJSON_GetArraySize(steps), 26);
    for (int k = 5; k < 26; k += 5) {
        const cJSON *step = cJSON_GetArrayItem(steps, k);
        double beta = cJSON_GetNumberValue(cJSON_GetObjectItem(step, "beta")), exact[3];
        ising2d_exact(64, beta, &exact[1], &exact[2]);
        exact[0] = -ising2d_exact_log_z(64, beta) / (64.0 * 64.0);
        const char *names[3] = {"free_energy", "energy", "specific_heat"};
        for (int q = 0; q < 3; q++) {
            const cJSON *o = cJSON_GetObjectItem(step, names[q]);
            char what[96];
            snprintf(what, sizeof what, "msc resident PA %s L=64 R=300 x10 beta=%.3f %s", rng, beta, names[q]);
            double z = physics_compare(what, cJSON_GetNumberValue(cJSON_GetObjectItem(o, "mean")),
                                       cJSON_GetNumberValue(cJSON_GetObjectItem(o, "error")), exact[q]);
            cr_expect_leq(z, 4.0, "%s", what);
        }
    }
    cJSON_Delete(result);
    free(dir);
}

Test(resident, population_annealing_msc_matches_exact, .timeout = 240)
{
    expect_pa_msc_exact("resident-pa-msc-exact", "philox4x32_10");
}

/* The fast option of issue 20: each word's bit planes from an LCG64 seeded
 * from Philox at each step (docs/rng.md). */
Test(resident, population_annealing_msc_lcg64_reseeded_matches_exact, .timeout = 240)
{
    expect_pa_msc_exact("resident-pa-msc-lcg-exact", "lcg64_reseeded");
}

/* lcg64_reseeded: a word's generator is its own (seeded from its Philox
 * unit at each launch, handed back where another item finishes the word),
 * so the result does not depend on how many members share a work-group:
 * 50 members of L = 64 in groups of 1, 3 and 4 (the last partly filled), 2D,
 * and 3D L = 64; the final members' hash alike. */
Test(resident, lcg64_reseeded_independent_of_grouping, .timeout = 240)
{
    const char *const json[2] = {
        "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 64}, \"algorithm\": {\"layout\": \"msc\", "
        "\"resident\": \"on\", \"rng\": \"lcg64_reseeded\"}, \"ensemble\": {\"type\": \"population_annealing\", "
        "\"population\": 50, \"beta_end\": 0.6, \"steps\": 6, \"sweeps_per_step\": 3}, \"run\": {\"seed\": 8}}",
        "{\"model\": {\"type\": \"ising\", \"dim\": 3, \"L\": 64}, \"algorithm\": {\"layout\": \"msc\", "
        "\"resident\": \"on\", \"rng\": \"lcg64_reseeded\"}, \"ensemble\": {\"type\": \"population_annealing\", "
        "\"population\": 4, \"beta_end\": 0.3, \"steps\": 2, \"sweeps_per_step\": 2}, \"run\": {\"seed\": 8}}"};
    const char *const groups[2][3] = {{"1", "3", "4"}, {"1", "2", "4"}};
    for (int d = 0; d < 2; d++) {
        char label[64], *dir, preset[4200], hashes[3][32];
        snprintf(label, sizeof label, "resident-lcg-groups-%dd", d + 2);
        dir = rerun_preset_dir(label, json[d]);
        snprintf(preset, sizeof preset, "%s/preset.json", dir);
        for (int g = 0; g < 3; g++) {
            char name[16], set[64];
            snprintf(name, sizeof name, "g%s", groups[d][g]);
            snprintf(set, sizeof set, "--set algorithm.resident_configs=%s", groups[d][g]);
            free(rerun_file(dir, preset, name, set, "result.json"));
            cJSON *result;
            const cJSON *record = resident_record(dir, name, &result);
            cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(record, "used")), "%s %s: resident path not taken", label, name);
            cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(record, "configs_per_group")), atof(groups[d][g]));
            snprintf(hashes[g], sizeof hashes[g], "%s", fnv_of(result));
            cJSON_Delete(result);
        }
        printf("%s: final members %s, %s, %s (groups of %s, %s, %s)\n", label, hashes[0], hashes[1], hashes[2],
               groups[d][0], groups[d][1], groups[d][2]);
        cr_expect_str_eq(hashes[0], hashes[1], "%s", label);
        cr_expect_str_eq(hashes[0], hashes[2], "%s", label);
        free(dir);
    }
}

/* lcg64_reseeded belongs to msc population annealing on the resident update. */
Test(resident, lcg64_reseeded_bad_input, .timeout = 120)
{
    expect_input_error("{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 64}, \"algorithm\": "
                       "{\"layout\": \"msc\", \"rng\": \"lcg64_reseeded\"}, \"ensemble\": {\"beta\": 0.44}, "
                       "\"run\": {\"sweeps\": 2, \"measure_every\": 1}}",
                       "lcg-not-pa", "algorithm.rng: \"lcg64_reseeded\" is an option of population annealing");
    expect_input_error("{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 16}, \"algorithm\": "
                       "{\"layout\": \"tiled\", \"rng\": \"lcg64_reseeded\"}, \"ensemble\": {\"type\": "
                       "\"population_annealing\", \"population\": 8, \"beta_end\": 0.5, \"steps\": 2}}",
                       "lcg-tiled", "algorithm.rng: \"lcg64_reseeded\" is an option of population annealing");
    /* Known only once the device is open: exit 2 before any sweep. */
    char *dir = test_scratch_dir("lcg-off"), *output = NULL;
    cr_assert_not_null(dir);
    char *preset = test_write_preset(dir, "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 64}, \"algorithm\": "
                                          "{\"layout\": \"msc\", \"resident\": \"off\", \"rng\": \"lcg64_reseeded\"}, "
                                          "\"ensemble\": {\"type\": \"population_annealing\", \"population\": 8, "
                                          "\"beta_end\": 0.5, \"steps\": 2}}");
    int status = test_run_clmc(&output, "run '%s' --quiet --out '%s/out'", preset, dir);
    printf("lcg-off: exit %d: %s", status, output ? output : "");
    cr_expect_eq(status, 2);
    cr_expect(output && strstr(output, "draws in the resident msc update, which this run does not take "
                                       "(off: algorithm.resident)"));
    free(output);
    free(preset);
    free(dir);
    expect_input_error("{\"model\": {\"type\": \"heisenberg\", \"dim\": 2, \"L\": 8, \"n\": 2}, \"algorithm\": "
                       "{\"rng\": \"lcg64_reseeded\"}, \"ensemble\": {\"beta\": 1.0}, "
                       "\"run\": {\"sweeps\": 2, \"measure_every\": 1}}",
                       "lcg-heisenberg", "algorithm.rng: \"lcg64_reseeded\" is for the Ising model");
}

/* algorithm.resident_configs belongs to layout msc. */
Test(resident, resident_configs_needs_msc, .timeout = 60)
{
    expect_input_error("{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 16}, \"algorithm\": "
                       "{\"layout\": \"naive\", \"resident_configs\": 2}, \"ensemble\": {\"beta\": 0.44}, "
                       "\"run\": {\"sweeps\": 2, \"measure_every\": 1}}",
                       "resident-configs-naive", "algorithm.resident_configs");
}

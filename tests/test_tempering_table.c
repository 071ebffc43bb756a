/* The exact integer thresholds of tempering_table.c give the same exchange
 * decisions as the host rule of tempering.c: at every threshold's edge and
 * for random words and energy differences. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "clmc/preset.h"
#include "clmc/status.h"
#include "common/philox.h"
#include "ensembles/ensemble.h"
#include "ensembles/tempering.h"
#include "ensembles/tempering_table.h"

#define RANDOM_CHECKS (1u << 20)

typedef struct {
    clmc_preset *preset;
    clmc_tempering pt;
} tempering_fixture;

/* The tempering map of a preset's ensemble section, as a run makes it. */
static clmc_status tempering_from_preset(clmc_tempering *pt, const clmc_preset *preset, const clmc_model_shape *shape)
{
    static clmc_ensemble_settings settings;
    CLMC_TRY(clmc_ensemble_settings_read(preset, &settings));
    return clmc_tempering_init(pt, settings.betas, settings.n_betas, settings.exchange_every, settings.seed, shape, 0, 0);
}

static void fixture_init(tempering_fixture *f, const char *betas, unsigned n_betas)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 8, \"couplings\": \"bimodal\", \"realizations\": 64},"
             " \"algorithm\": {\"layout\": \"msc\"}, \"ensemble\": {\"type\": \"parallel_tempering\","
             " \"betas\": %s, \"exchange_every\": 10}, \"run\": {\"sweeps\": 10, \"seed\": 5}}",
             betas);
    cr_assert_eq(clmc_preset_parse(text, strlen(text), "table-test", NULL, 0, &f->preset), CLMC_OK, "%s",
                 clmc_error_message());
    clmc_model_shape shape = {.n_systems = 1, .n_temperatures = n_betas};
    cr_assert_eq(tempering_from_preset(&f->pt, f->preset, &shape), CLMC_OK, "%s", clmc_error_message());
}

static void fixture_free(tempering_fixture *f)
{
    clmc_tempering_free(&f->pt);
    clmc_preset_free(f->preset);
}

static bool host_accepts(const clmc_tempering *pt, unsigned t, int64_t k, uint32_t v)
{
    return clmc_tempering_accepts(pt, v, (pt->betas[t + 1] - pt->betas[t]) * (double)k);
}

/* Words from a Philox stream independent of the code under test's counters. */
static uint32_t test_word(uint32_t i, unsigned lane)
{
    clmc_philox_ctr ctr = {{i, 0x7e57, 0, 0}};
    clmc_philox_key key = {{12345, 678}};
    return clmc_philox4x32_10(ctr, key).v[lane];
}

static void check_table(const char *betas, unsigned n_betas)
{
    tempering_fixture f;
    fixture_init(&f, betas, n_betas);
    clmc_tempering_table table;
    cr_assert(clmc_tempering_table_build(&table, &f.pt), "table for %s not built", betas);
    unsigned long edges = 0, random_checks = 0, accepted = 0;
    for (unsigned t = 0; t < table.n_pairs; t++) {
        uint32_t entries = table.offset[t + 1] - table.offset[t];
        for (uint32_t i = 0; i < entries; i++) {
            int64_t k = -(int64_t)i - 1;
            uint64_t edge = table.threshold[table.offset[t] + i];
            if (edge > 0) {
                cr_assert(host_accepts(&f.pt, t, k, (uint32_t)(edge - 1)), "pair %u k %lld below edge", t, (long long)k);
                edges++;
            }
            if (edge < (UINT64_C(1) << 32)) {
                cr_assert(!host_accepts(&f.pt, t, k, (uint32_t)edge), "pair %u k %lld at edge", t, (long long)k);
                edges++;
            }
        }
        /* Differences just past the table are always rejected. */
        cr_assert(!host_accepts(&f.pt, t, -(int64_t)entries - 1, 0));
    }
    for (uint32_t i = 0; i < RANDOM_CHECKS; i++) {
        unsigned t = test_word(i, 0) % table.n_pairs;
        uint32_t span = table.offset[t + 1] - table.offset[t] + 8;
        int64_t k = (int64_t)(test_word(i, 1) % (2 * span)) - (int64_t)span;
        /* Words near the pair's threshold half of the time, anywhere otherwise. */
        uint32_t v = test_word(i, 2);
        if (k < 0 && (uint64_t)-k <= span - 8 && (test_word(i, 3) & 1)) {
            uint64_t edge = table.threshold[table.offset[t] + (uint64_t)(-k - 1)];
            v = (uint32_t)(edge + (v % 64) - 32);
        }
        bool expected = host_accepts(&f.pt, t, k, v);
        cr_assert_eq(clmc_tempering_table_accepts(&table, t, k, v), expected, "pair %u k %lld v %u", t, (long long)k, v);
        accepted += expected;
        random_checks++;
    }
    printf("tempering table %s: %u entries, %lu edge checks, %lu random checks (%lu accepted) equal the host rule\n",
           betas, table.offset[table.n_pairs], edges, random_checks, accepted);
    clmc_tempering_table_free(&table);
    fixture_free(&f);
}

Test(tempering_table, sixteen_temperatures_equal_host_rule)
{
    check_table("[0.6, 0.63, 0.66, 0.69, 0.72, 0.75, 0.78, 0.81, 0.84, 0.87, 0.9, 0.93, 0.96, 0.99, 1.02, 1.05]", 16);
}

Test(tempering_table, uneven_steps_equal_host_rule)
{
    check_table("[0.1, 0.1003, 0.25, 0.4406868, 1.0, 3.0]", 6);
}

Test(tempering_table, tiny_steps_keep_host_path)
{
    tempering_fixture f;
    fixture_init(&f, "[0.5, 0.5000001, 0.6]", 3);
    clmc_tempering_table table;
    cr_assert(!clmc_tempering_table_build(&table, &f.pt), "a table of more than %u entries was built",
              CLMC_TEMPERING_TABLE_MAX);
    cr_assert_null(table.threshold);
    fixture_free(&f);
}

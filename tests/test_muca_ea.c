/* ensemble.type "multicanonical" and "wang_landau" for the Edwards-Anderson
 * spin glass (ea_ising, naive layout): one density of states per disorder
 * realization.  2D L = 4 with +-J couplings, 2 realizations: each
 * realization's ln g(E) against the exact one, enumerated here over the 2^16
 * states with the couplings the run uses (clmc_ea_coupling with the run's
 * seed, as every ea_ising run draws them), within 4 standard errors at every
 * energy (exactly the energies with states present), the reweighted energy
 * at two betas against the exact canonical value, the disorder average the
 * mean of the realizations; Wang-Landau against the same exact values and
 * agreeing with multicanonical realization by realization, realization 0
 * run alone bit-identical to realization 0 of 2, Wang-Landau in 3
 * windows; uniform couplings against the Ising g(E); 3D L = 4: the
 * energies' residue mod 4 and g(E) = g(-E); the weights of unvisited
 * energies; keys that do not apply exit 2 naming the key. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ensembles/density_walkers.h"
#include "models/disorder.h"
#include "physics.h"
#include "testenv.h"

#define TOLERANCE_SIGMA 4.0
#define EDGE 4
#define SITES (EDGE * EDGE)
#define BONDS (2 * SITES)
#define SEED 8
#define REALIZATIONS 2

/* Exact density of states of realization r: count [(E + BONDS) / 2] for the
 * 2^SITES states (sites row-major, x fastest; bond d of a site to its +d
 * neighbour, periodic). */
static void exact_counts(clmc_ea_couplings kind, unsigned r, uint64_t count[BONDS + 1])
{
    int j[SITES][2], up[SITES][2];
    for (int site = 0; site < SITES; site++) {
        int x = site % EDGE, y = site / EDGE;
        up[site][0] = y * EDGE + (x + 1) % EDGE;
        up[site][1] = ((y + 1) % EDGE) * EDGE + x;
        for (int d = 0; d < 2; d++) j[site][d] = (int)clmc_ea_coupling(kind, SEED, r, (uint32_t)site, (unsigned)d);
    }
    memset(count, 0, (BONDS + 1) * sizeof *count);
    for (uint32_t state = 0; state < (1u << SITES); state++) {
        int e = 0;
        for (int site = 0; site < SITES; site++)
            for (int d = 0; d < 2; d++) {
                int a = (state >> site) & 1 ? 1 : -1, b = (state >> up[site][d]) & 1 ? 1 : -1;
                e -= j[site][d] * a * b;
            }
        count[(e + BONDS) / 2]++;
    }
    uint64_t total = 0;
    for (int i = 0; i <= BONDS; i++) total += count[i];
    cr_assert_eq(total, (uint64_t)1 << SITES, "the counts sum to 2^N");
}

/* Exact <E>/N at beta from the counts. */
static double exact_energy(const uint64_t count[BONDS + 1], double beta)
{
    double z = 0, sum = 0;
    for (int i = 0; i <= BONDS; i++) {
        if (!count[i]) continue;
        int e = 2 * i - BONDS;
        double weight = (double)count[i] * exp(-beta * (e + BONDS)); /* shifted: no overflow */
        z += weight;
        sum += weight * e;
    }
    return sum / z / SITES;
}

static const cJSON *item(const cJSON *object, const char *a, const char *b)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(object, a), b);
}

/* Every realization of `result` against its exact density of states and energies. */
static void expect_matches_exact(const cJSON *result, clmc_ea_couplings kind, int realizations, const char *method)
{
    const cJSON *list = item(result, "density_of_states", "realizations");
    const cJSON *observables = item(result, "observables", "realizations");
    cr_assert_eq(cJSON_GetArraySize(list), realizations, "%s: one density of states per realization", method);
    cr_assert_eq(cJSON_GetArraySize(observables), realizations, "%s: observables per realization", method);
    for (unsigned r = 0; r < (unsigned)realizations; r++) {
        uint64_t count[BONDS + 1];
        exact_counts(kind, r, count);
        const cJSON *dos = cJSON_GetArrayItem(list, (int)r);
        cr_expect_eq(cJSON_GetObjectItem(dos, "realization")->valueint, (int)r);
        const cJSON *energies = cJSON_GetObjectItem(dos, "energies"), *ln_g = cJSON_GetObjectItem(dos, "ln_g"),
                    *error = cJSON_GetObjectItem(dos, "error");
        int n = 0, k = 0;
        for (int i = 0; i <= BONDS; i++) n += count[i] > 0;
        cr_assert_eq(cJSON_GetArraySize(energies), n, "%s realization %u: %d energies, exactly %d have states", method,
                     r, cJSON_GetArraySize(energies), n);
        double worst = 0, norm = 0;
        int worst_energy = 0;
        for (int i = 0; i <= BONDS; i++) {
            if (!count[i]) continue;
            int e = cJSON_GetArrayItem(energies, k)->valueint;
            cr_assert_eq(e, 2 * i - BONDS, "%s realization %u: energy %d is %d, exactly %d", method, r, k, e,
                         2 * i - BONDS);
            char what[96];
            snprintf(what, sizeof what, "%s realization %u ln g(%d)", method, r, e);
            double g = cJSON_GetArrayItem(ln_g, k)->valuedouble;
            norm += exp(g);
            double z = physics_compare(what, g, cJSON_GetArrayItem(error, k)->valuedouble, log((double)count[i]));
            if (z > worst) worst = z, worst_energy = e;
            cr_expect_lt(z, TOLERANCE_SIGMA, "%s", what);
            k++;
        }
        printf("%s realization %u: %d energies from %d to %d, largest |z| of ln g %.2f at E = %d; sum of g %.6g "
               "(2^N = %d)\n", method, r, n, cJSON_GetArrayItem(energies, 0)->valueint,
               cJSON_GetArrayItem(energies, n - 1)->valueint, worst, worst_energy, norm, 1 << SITES);
        cr_expect_lt(fabs(norm / (1 << SITES) - 1), 1e-9, "sum of g = 2^N");
        const cJSON *entry;
        cJSON_ArrayForEach(entry, cJSON_GetObjectItem(cJSON_GetArrayItem(observables, (int)r), "temperatures"))
        {
            double beta = cJSON_GetObjectItem(entry, "beta")->valuedouble;
            char what[96];
            snprintf(what, sizeof what, "%s realization %u beta=%g energy", method, r, beta);
            double z = physics_compare(what, item(entry, "energy", "mean")->valuedouble,
                                       item(entry, "energy", "error")->valuedouble, exact_energy(count, beta));
            cr_expect_lt(z, TOLERANCE_SIGMA, "%s", what);
        }
    }
    /* The disorder average: the realizations' mean. */
    const cJSON *average;
    int t = 0;
    cJSON_ArrayForEach(average, item(result, "observables", "temperatures"))
    {
        double sum = 0;
        for (int r = 0; r < realizations; r++)
            sum += item(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(observables, r), "temperatures"), t),
                        "energy", "mean")->valuedouble;
        cr_expect_lt(fabs(item(average, "energy", "mean")->valuedouble - sum / realizations), 1e-12,
                     "%s: disorder-averaged energy", method);
        cr_expect_eq(cJSON_GetObjectItem(average, "realizations")->valueint, realizations);
        t++;
    }
    cr_expect_eq(t, 2, "%s: two betas averaged", method);
}

/* ln g of the two results agree within 4 combined standard errors in every realization. */
static void expect_agree(const cJSON *a, const cJSON *b, const char *what)
{
    double worst = 0;
    for (int r = 0; r < REALIZATIONS; r++) {
        const cJSON *da = cJSON_GetArrayItem(item(a, "density_of_states", "realizations"), r);
        const cJSON *db = cJSON_GetArrayItem(item(b, "density_of_states", "realizations"), r);
        int n = cJSON_GetArraySize(cJSON_GetObjectItem(da, "energies"));
        cr_assert_eq(n, cJSON_GetArraySize(cJSON_GetObjectItem(db, "energies")), "%s: as many energies", what);
        for (int i = 0; i < n; i++) {
            cr_expect_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(da, "energies"), i)->valueint,
                         cJSON_GetArrayItem(cJSON_GetObjectItem(db, "energies"), i)->valueint);
            double ga = cJSON_GetArrayItem(cJSON_GetObjectItem(da, "ln_g"), i)->valuedouble;
            double gb = cJSON_GetArrayItem(cJSON_GetObjectItem(db, "ln_g"), i)->valuedouble;
            double ea = cJSON_GetArrayItem(cJSON_GetObjectItem(da, "error"), i)->valuedouble;
            double eb = cJSON_GetArrayItem(cJSON_GetObjectItem(db, "error"), i)->valuedouble;
            double z = fabs(ga - gb) / sqrt(ea * ea + eb * eb);
            worst = fmax(worst, z);
            cr_expect_lt(z, TOLERANCE_SIGMA, "%s: realization %d energy %d: %.4f +- %.4f vs %.4f +- %.4f", what, r,
                         i, ga, ea, gb, eb);
        }
    }
    printf("%s: largest |z| %.2f\n", what, worst);
}

#define EA_PRESET(type, extra, seed_text)                                                                            \
    "{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 4, \"realizations\": 2}, \"ensemble\": {\"type\": \""    \
    type "\", \"betas\": [0.5, 1.0], \"walkers\": 64" extra "}, \"run\": {\"thermalization\": 100, \"sweeps\": 2000," \
    " \"seed\": " seed_text "}}"

Test(muca_ea, ea2d_L4_two_realizations_muca_and_wang_landau_match_exact_enumeration_and_agree, .timeout = 600)
{
    cJSON *muca = physics_run(EA_PRESET("multicanonical", ", \"flatness\": 0.5, \"iteration_sweeps\": 100", "8"),
                              "muca-ea-L4");
    expect_matches_exact(muca, CLMC_EA_BIMODAL, REALIZATIONS, "multicanonical");
    cJSON *wl = physics_run(EA_PRESET("wang_landau", ", \"final_ln_f\": 1e-3", "8"), "wl-ea-L4");
    expect_matches_exact(wl, CLMC_EA_BIMODAL, REALIZATIONS, "wang_landau");
    expect_agree(muca, wl, "EA L=4 multicanonical vs wang_landau ln g");
    /* Realization 0 alone: the same numbers bit for bit (a realization's
     * couplings and random numbers do not depend on model.realizations). */
    cJSON *alone = physics_run("{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 4, \"realizations\": 1}, "
                               "\"ensemble\": {\"type\": \"multicanonical\", \"betas\": [0.5, 1.0], \"walkers\": 64, "
                               "\"flatness\": 0.5, \"iteration_sweeps\": 100}, \"run\": {\"thermalization\": 100, "
                               "\"sweeps\": 2000, \"seed\": 8}}",
                               "muca-ea-L4-alone");
    const cJSON *first = cJSON_GetArrayItem(item(muca, "density_of_states", "realizations"), 0);
    const cJSON *single = cJSON_GetArrayItem(item(alone, "density_of_states", "realizations"), 0);
    const char *fields[] = {"energies", "ln_g", "error"};
    for (int f = 0; f < 3; f++) {
        char *a = cJSON_PrintUnformatted(cJSON_GetObjectItem(first, fields[f]));
        char *b = cJSON_PrintUnformatted(cJSON_GetObjectItem(single, fields[f]));
        cr_expect_str_eq(a, b, "realization 0 %s: alone %s, of 2 %s", fields[f], b, a);
        free(a);
        free(b);
    }
    cJSON_Delete(alone);
    cJSON_Delete(muca);
    cJSON_Delete(wl);
}

/* Wang-Landau in 3 windows of 16 walkers with replica exchange: the window
 * exchanges of each realization draw their own random numbers, the windows
 * cover bins no realization reaches (beyond its ground state). */
Test(muca_ea, ea2d_L4_wang_landau_windows_match_exact_enumeration, .timeout = 600)
{
    cJSON *windowed = physics_run(EA_PRESET("wang_landau", ", \"windows\": 3, \"walkers_per_window\": 16, "
                                            "\"final_ln_f\": 1e-3", "8"),
                                  "wl-windows-ea-L4");
    expect_matches_exact(windowed, CLMC_EA_BIMODAL, REALIZATIONS, "wang_landau 3 windows");
    for (int r = 0; r < REALIZATIONS; r++) {
        const cJSON *unit = cJSON_GetArrayItem(item(windowed, "density_of_states", "realizations"), r);
        const cJSON *report = cJSON_GetObjectItem(unit, "wang_landau");
        const cJSON *acceptance = cJSON_GetObjectItem(report, "exchange_acceptance");
        cr_assert_eq(cJSON_GetArraySize(acceptance), 2, "exchange acceptance of the 2 window pairs");
        for (int k = 0; k < 2; k++) {
            double a = cJSON_GetArrayItem(acceptance, k)->valuedouble;
            printf("realization %d windows %d-%d: exchange acceptance %.3f\n", r, k, k + 1, a);
            cr_expect(a > 0 && a <= 1, "realization %d windows %d-%d exchange: acceptance %g", r, k, k + 1, a);
        }
    }
    cJSON_Delete(windowed);
}

/* 3D L = 4 (no enumeration: 2^64 states): every energy visited has the
 * residue of the all-up energy -sum J mod 4 (a flip changes H by a multiple
 * of 4), ln g(E) = ln g(-E) within 4 combined standard errors (the
 * sublattice flip of the bipartite torus), the sum of g = 2^N. */
Test(muca_ea, ea3d_L4_energies_residue_and_symmetry, .timeout = 600)
{
    cJSON *result = physics_run("{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4}, \"ensemble\": "
                                "{\"type\": \"multicanonical\", \"betas\": [1.0], \"walkers\": 64}, \"run\": "
                                "{\"thermalization\": 100, \"sweeps\": 1000, \"seed\": 3}}",
                                "muca-ea3d-L4");
    int all_up = 0;
    for (uint32_t site = 0; site < 64; site++)
        for (unsigned d = 0; d < 3; d++) all_up -= (int)clmc_ea_coupling(CLMC_EA_BIMODAL, 3, 0, site, d);
    const cJSON *dos = cJSON_GetArrayItem(item(result, "density_of_states", "realizations"), 0);
    const cJSON *energies = cJSON_GetObjectItem(dos, "energies"), *ln_g = cJSON_GetObjectItem(dos, "ln_g"),
                *error = cJSON_GetObjectItem(dos, "error");
    int n = cJSON_GetArraySize(energies);
    cr_assert_gt(n, 2);
    double worst = 0, sum = 0;
    for (int i = 0; i < n; i++) {
        int e = cJSON_GetArrayItem(energies, i)->valueint;
        cr_expect_eq(((e - all_up) % 4 + 4) % 4, 0, "energy %d: not %d mod 4", e, all_up);
        cr_expect_eq(e, -cJSON_GetArrayItem(energies, n - 1 - i)->valueint, "energies symmetric");
        double a = cJSON_GetArrayItem(ln_g, i)->valuedouble, b = cJSON_GetArrayItem(ln_g, n - 1 - i)->valuedouble;
        double ea = cJSON_GetArrayItem(error, i)->valuedouble, eb = cJSON_GetArrayItem(error, n - 1 - i)->valuedouble;
        worst = fmax(worst, fabs(a - b) / sqrt(ea * ea + eb * eb));
        sum += exp(a - 64 * log(2.0));
    }
    printf("multicanonical EA 3D L=4: %d energies %d .. %d (all-up energy %d), largest |z| of ln g(E) - ln g(-E) %.2f, "
           "sum of g / 2^N - 1 = %.1e\n", n, cJSON_GetArrayItem(energies, 0)->valueint,
           cJSON_GetArrayItem(energies, n - 1)->valueint, all_up, worst, sum - 1);
    cr_expect_lt(worst, TOLERANCE_SIGMA);
    cr_expect_lt(fabs(sum - 1), 1e-9);
    cJSON_Delete(result);
}

/* Uniform couplings (the ferromagnet): the extreme bins -2N and 2N are then
 * reached (the two ground states, and their sublattice-flipped mirrors),
 * the flatness test without them still converges, and ln g is the 2D Ising
 * one of L = 4. */
Test(muca_ea, ea2d_L4_uniform_couplings_match_the_ising_density_of_states, .timeout = 600)
{
    cJSON *result = physics_run("{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 4, \"couplings\": "
                                "\"uniform\"}, \"ensemble\": {\"type\": \"multicanonical\", \"betas\": [0.3, 0.6], "
                                "\"walkers\": 64}, \"run\": {\"thermalization\": 100, \"sweeps\": 2000, \"seed\": 8}}",
                                "muca-ea-uniform-L4");
    expect_matches_exact(result, CLMC_EA_UNIFORM, 1, "multicanonical uniform couplings");
    cJSON_Delete(result);
}

/* muca_fill_unseen (density_walkers.c): energies not yet visited take their
 * nearest visited neighbour's weight (below; the lowest visited one beneath
 * it), visited ones keep theirs, nothing visited leaves all alone. */
Test(muca_ea, unseen_bins_take_the_nearest_seen_weight)
{
    double values[7] = {0, 0, -3, 0, -5, -7, 0};
    const unsigned char seen[7] = {0, 0, 1, 0, 1, 1, 0};
    muca_fill_unseen(values, seen, 7);
    const double expected[7] = {-3, -3, -3, -3, -5, -7, -7};
    for (int i = 0; i < 7; i++)
        cr_expect_eq(values[i], expected[i], "bin %d: %g, expected %g", i, values[i], expected[i]);
    double untouched[3] = {1, 2, 3};
    const unsigned char none[3] = {0, 0, 0};
    muca_fill_unseen(untouched, none, 3);
    cr_expect(untouched[0] == 1 && untouched[1] == 2 && untouched[2] == 3, "nothing seen: unchanged");
}

#define EA_WITH(model, algorithm)                                                                                    \
    "{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 4" model "}, \"algorithm\": {\"type\": \"metropolis\""  \
    algorithm "}, \"ensemble\": {\"type\": \"multicanonical\", \"betas\": [0.5]}, \"run\": {\"sweeps\": 10}}"

Test(muca_ea, keys_that_do_not_apply_exit_2_naming_the_key)
{
    expect_input_error(EA_WITH(", \"realizations\": 64", ", \"layout\": \"msc\""), "muca-ea-msc", "algorithm.layout");
    expect_input_error(EA_WITH(", \"couplings\": \"gaussian\"", ""), "muca-ea-gaussian", "model.couplings");
    expect_input_error(EA_WITH("", ", \"shared_randoms\": true"), "muca-ea-shared", "algorithm.shared_randoms");
    expect_input_error(EA_WITH(", \"start\": \"ordered\"", ""), "muca-ea-ordered", "model.start");
    /* No checkpoints of a density of states per realization yet: refused when
     * the preset is read, not when the first checkpoint is due. */
    const char *checkpointed = "{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 4}, \"algorithm\": {\"type\": "
                               "\"metropolis\"}, \"ensemble\": {\"type\": \"%s\", \"betas\": [0.5]}, \"run\": "
                               "{\"sweeps\": 10, \"checkpoint_every\": \"%s\"}}";
    const char *kinds[][3] = {{"multicanonical", "5", "muca-ea-checkpoint"},
                              {"wang_landau", "30s", "muca-ea-wl-checkpoint"}};
    for (int i = 0; i < 2; i++) {
        char preset[600];
        snprintf(preset, sizeof preset, checkpointed, kinds[i][0], kinds[i][1]);
        expect_input_error(preset, kinds[i][2], "run.checkpoint_every");
    }
}

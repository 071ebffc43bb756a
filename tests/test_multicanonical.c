/* ensemble.type "multicanonical": the 2D Ising density of states at L = 8,
 * 6 and 16 (L = 32 opt-in, CLMC_LONG_TESTS=1) against the exact one (tests/data,
 * tools/exact_dos.py) within 4 standard errors at every energy, from
 * multicanonical and from Wang-Landau weights (one window, and 3 windows
 * with replica exchange), all agreeing, Wang-Landau without production, the
 * reweighted energy, specific heat, free energy and entropy against Kaufman's
 * finite-lattice values, 3D ground states and symmetry, bad input
 * exiting 2 naming the key, and the walker layouts (2D bit rows or one char
 * per site), histogram paths (group histograms in local or global memory)
 * and the production program of energy windows of
 * src/ensembles/density_walkers.c counting bit for bit alike. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/preset.h"
#include "clmc/runtime.h"
#include "ensembles/density_walkers.h"
#include "ising_dos.h"
#include "ising_exact.h"
#include "physics.h"
#include "testenv.h"

#define TOLERANCE_SIGMA 4.0

enum { MAX_ENERGIES = 2 * 32 * 32 + 1 };

static double field(const cJSON *entry, const char *name, const char *which)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(entry, name), which)->valuedouble;
}

/* ln g(E) of `result` at every energy of the exact density of states, and the
 * reweighted thermodynamics at each beta. */
static void expect_matches_exact(const cJSON *result, int L, const char *method)
{
    int exact_energies[MAX_ENERGIES];
    double exact_ln_g[MAX_ENERGIES];
    int n = ising2d_exact_dos(L, exact_energies, exact_ln_g, MAX_ENERGIES);
    cr_assert(n > 0, "no exact density of states for L=%d", L);
    const cJSON *dos = cJSON_GetObjectItem(result, "density_of_states");
    const cJSON *energies = cJSON_GetObjectItem(dos, "energies"), *ln_g = cJSON_GetObjectItem(dos, "ln_g"),
                *error = cJSON_GetObjectItem(dos, "error");
    cr_assert_eq(cJSON_GetArraySize(energies), n, "%s L=%d: %d energies, exactly %d have states", method, L,
                 cJSON_GetArraySize(energies), n);
    printf("%s L=%d: production flatness %.3f\n", method, L,
           cJSON_GetObjectItem(dos, "production_flatness")->valuedouble);
    double worst = 0;
    for (int i = 0; i < n; i++) {
        int e = cJSON_GetArrayItem(energies, i)->valueint;
        cr_assert_eq(e, exact_energies[i], "energy %d: %d, exactly %d", i, e, exact_energies[i]);
        char what[96];
        snprintf(what, sizeof what, "%s L=%d ln g(%d)", method, L, e);
        double z = physics_compare(what, cJSON_GetArrayItem(ln_g, i)->valuedouble,
                                   cJSON_GetArrayItem(error, i)->valuedouble, exact_ln_g[i]);
        worst = fmax(worst, z);
        cr_expect_lt(z, TOLERANCE_SIGMA, "%s", what);
    }
    printf("%s L=%d: largest |z| of ln g %.2f\n", method, L, worst);
    const cJSON *entry;
    cJSON_ArrayForEach(entry, cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures"))
    {
        double beta = cJSON_GetObjectItem(entry, "beta")->valuedouble, u, c;
        ising2d_exact(L, beta, &u, &c);
        double free_energy = -ising2d_exact_log_z(L, beta) / (L * L), entropy = beta * u - free_energy;
        const char *names[] = {"energy", "specific_heat", "free_energy", "entropy"};
        double exact[] = {u, c, free_energy, entropy};
        for (int q = 0; q < 4; q++) {
            char what[96];
            snprintf(what, sizeof what, "%s L=%d beta=%.7g %s", method, L, beta, names[q]);
            double z = physics_compare(what, field(entry, names[q], "mean"), field(entry, names[q], "error"), exact[q]);
            cr_expect_lt(z, TOLERANCE_SIGMA, "%s", what);
        }
    }
}

#define MUCA_PRESET(L, walkers, sweeps, seed)                                                                        \
    "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": " #L "}, \"ensemble\": {\"type\": \"multicanonical\","      \
    " \"betas\": [0.3, 0.4406868, 0.6], \"walkers\": " #walkers ", \"flatness\": 0.5, \"iteration_sweeps\": 100},"   \
    " \"run\": {\"thermalization\": 100, \"sweeps\": " #sweeps ", \"seed\": " #seed "}}"

#define WL_PRESET(L, walkers, sweeps, seed)                                                                          \
    "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": " #L "}, \"ensemble\": {\"type\": \"wang_landau\","         \
    " \"betas\": [0.3, 0.4406868, 0.6], \"walkers\": " #walkers ", \"final_ln_f\": 1e-3},"                             \
    " \"run\": {\"thermalization\": 100, \"sweeps\": " #sweeps ", \"seed\": " #seed "}}"

#define WINDOWED_PRESET(L, windows, per_window, sweeps, seed)                                                        \
    "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": " #L "}, \"ensemble\": {\"type\": \"wang_landau\","         \
    " \"betas\": [0.3, 0.4406868, 0.6], \"windows\": " #windows ", \"overlap\": 0.5, \"walkers_per_window\": " #per_window \
    ", \"final_ln_f\": 1e-3}, \"run\": {\"thermalization\": 100, \"sweeps\": " #sweeps ", \"seed\": " #seed "}}"

/* The two results' ln g agree within 4 combined standard errors at every energy. */
static void expect_agree(const cJSON *a, const cJSON *b, const char *what)
{
    const cJSON *da = cJSON_GetObjectItem(a, "density_of_states"), *db = cJSON_GetObjectItem(b, "density_of_states");
    int n = cJSON_GetArraySize(cJSON_GetObjectItem(da, "energies"));
    cr_assert_eq(n, cJSON_GetArraySize(cJSON_GetObjectItem(db, "energies")), "%s: as many energies", what);
    double worst = 0;
    for (int i = 0; i < n; i++) {
        double ga = cJSON_GetArrayItem(cJSON_GetObjectItem(da, "ln_g"), i)->valuedouble;
        double gb = cJSON_GetArrayItem(cJSON_GetObjectItem(db, "ln_g"), i)->valuedouble;
        double ea = cJSON_GetArrayItem(cJSON_GetObjectItem(da, "error"), i)->valuedouble;
        double eb = cJSON_GetArrayItem(cJSON_GetObjectItem(db, "error"), i)->valuedouble;
        double z = fabs(ga - gb) / sqrt(ea * ea + eb * eb);
        printf("%s E=%d: %.4f +- %.4f vs %.4f +- %.4f (z = %.2f)\n", what,
               cJSON_GetArrayItem(cJSON_GetObjectItem(da, "energies"), i)->valueint, ga, ea, gb, eb, z);
        worst = fmax(worst, z);
        cr_expect_lt(z, TOLERANCE_SIGMA, "%s: energy %d", what, i);
    }
    printf("%s: largest |z| %.2f\n", what, worst);
}

/* ensemble.production false: the joined Wang-Landau ln g itself, no errors
 * (null), every energy with states present; a bad join would be off by
 * units, Wang-Landau's own error at final_ln_f = 1e-3 is a few 0.1 at most
 * (measured 0.27 largest): |ln g - exact| < 0.5 at every energy. */
#define WL_ONLY_TOLERANCE 0.5
static void expect_wang_landau_only_close(int L)
{
    cJSON *result = physics_run("{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8}, \"ensemble\": {\"type\": "
                                "\"wang_landau\", \"betas\": [0.4406868], \"windows\": 3, \"walkers_per_window\": 16, "
                                "\"final_ln_f\": 1e-3, \"production\": false}, \"run\": {\"sweeps\": 1, \"seed\": 35}}",
                                "wl-only-L8");
    int exact_energies[MAX_ENERGIES];
    double exact_ln_g[MAX_ENERGIES];
    int n = ising2d_exact_dos(L, exact_energies, exact_ln_g, MAX_ENERGIES);
    const cJSON *dos = cJSON_GetObjectItem(result, "density_of_states");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(dos, "energies")), n, "every energy with states");
    double worst = 0;
    int worst_energy = 0;
    for (int i = 0; i < n; i++) {
        cr_expect_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(dos, "energies"), i)->valueint, exact_energies[i]);
        cr_expect(cJSON_IsNull(cJSON_GetArrayItem(cJSON_GetObjectItem(dos, "error"), i)), "no error without production");
        double off = fabs(cJSON_GetArrayItem(cJSON_GetObjectItem(dos, "ln_g"), i)->valuedouble - exact_ln_g[i]);
        if (off > worst) worst = off, worst_energy = exact_energies[i];
    }
    printf("wang_landau 3 windows, no production, L=%d: largest |ln g - exact| %.3f at E=%d (tolerance %.1f)\n", L,
           worst, worst_energy, WL_ONLY_TOLERANCE);
    cr_expect_lt(worst, WL_ONLY_TOLERANCE);
    cJSON_Delete(result);
}

Test(multicanonical, ising2d_L8_muca_and_wang_landau_with_and_without_windows_match_exact_and_agree, .timeout = 900)
{
    cJSON *muca = physics_run(MUCA_PRESET(8, 64, 4000, 5), "muca-L8");
    expect_matches_exact(muca, 8, "multicanonical");
    cJSON *wl = physics_run(WL_PRESET(8, 64, 4000, 15), "wl-L8");
    expect_matches_exact(wl, 8, "wang_landau");
    const cJSON *report = cJSON_GetObjectItem(cJSON_GetObjectItem(wl, "density_of_states"), "wang_landau");
    cr_expect_lt(cJSON_GetObjectItem(report, "final_ln_f")->valuedouble, 1e-3, "Wang-Landau ran to final_ln_f");
    cr_expect_gt(cJSON_GetObjectItem(report, "halvings")->valuedouble, 0, "ln f halved on flat histograms");
    expect_agree(muca, wl, "multicanonical vs wang_landau L=8 ln g");
    /* Three windows of 16 walkers, replica exchange between them, joined. */
    cJSON *windowed = physics_run(WINDOWED_PRESET(8, 3, 16, 4000, 25), "wl-windows-L8");
    expect_matches_exact(windowed, 8, "wang_landau 3 windows");
    report = cJSON_GetObjectItem(cJSON_GetObjectItem(windowed, "density_of_states"), "wang_landau");
    const cJSON *acceptance = cJSON_GetObjectItem(report, "exchange_acceptance");
    cr_assert_eq(cJSON_GetArraySize(acceptance), 2, "exchange acceptance of the 2 window pairs");
    for (int k = 0; k < 2; k++) {
        double a = cJSON_GetArrayItem(acceptance, k)->valuedouble;
        printf("windows %d-%d: exchange acceptance %.3f of %.0f attempts\n", k, k + 1, a,
               cJSON_GetArrayItem(cJSON_GetObjectItem(report, "exchange_attempts"), k)->valuedouble);
        cr_expect(a > 0 && a <= 1, "windows %d-%d exchange: acceptance %g", k, k + 1, a);
    }
    expect_wang_landau_only_close(8);
    expect_agree(windowed, wl, "windowed vs unwindowed wang_landau L=8 ln g");
    expect_agree(windowed, muca, "windowed wang_landau vs multicanonical L=8 ln g");
    cJSON_Delete(windowed);
    cJSON_Delete(muca);
    cJSON_Delete(wl);
}

/* L = 6: the bit-row layout with 6-bit rows, the column counted in steps of
 * 2 (cl/ising/muca_ising.cl): ln g and the thermodynamics against the exact
 * values.  (A partial last draw per sweep, which no even L has, is covered
 * by the layouts test at L = 7.) */
Test(multicanonical, ising2d_L6_partial_last_draw_matches_exact, .timeout = 600)
{
    cJSON *muca = physics_run(MUCA_PRESET(6, 64, 4000, 7), "muca-L6");
    expect_matches_exact(muca, 6, "multicanonical");
    cJSON_Delete(muca);
}

/* L = 16 (about 25 s on 2 PoCL cores): multicanonical and Wang-Landau
 * against the exact density of states and thermodynamics, and each other. */
Test(multicanonical, ising2d_L16_matches_exact_density_of_states, .timeout = 3600)
{
    cJSON *result = physics_run(MUCA_PRESET(16, 128, 20000, 6), "muca-L16");
    expect_matches_exact(result, 16, "multicanonical");
    cJSON *wl = physics_run(WL_PRESET(16, 128, 20000, 16), "wl-L16");
    expect_matches_exact(wl, 16, "wang_landau");
    expect_agree(result, wl, "multicanonical vs wang_landau L=16 ln g");
    cJSON_Delete(result);
    cJSON_Delete(wl);
}

/* Opt-in: CLMC_LONG_TESTS=1.  At L = 32 a walker needs thousands of sweeps
 * to cross the energies, so the production starts after 4000 unrecorded
 * sweeps: with 100 (MUCA_PRESET's), the walkers' start from the last weight
 * iteration biased the low energies' ln g by +0.12 (3.3-4.4 standard errors
 * at 1024 walkers x 20000 sweeps on PoCL). */
Test(multicanonical, ising2d_L32_matches_exact_density_of_states, .timeout = 7200)
{
    TEST_LONG_ONLY();
    cJSON *result = physics_run("{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 32}, \"ensemble\": {\"type\": "
                                "\"multicanonical\", \"betas\": [0.3, 0.4406868, 0.6], \"walkers\": 1024, \"flatness\": 0.5, "
                                "\"iteration_sweeps\": 100}, \"run\": {\"thermalization\": 4000, \"sweeps\": 20000, "
                                "\"seed\": 8}}",
                                "muca-L32");
    expect_matches_exact(result, 32, "multicanonical");
    cJSON_Delete(result);
}

/* Exit 2 with a message containing `key`, no output directory. */
static void expect_refused(const char *json, const char *key)
{
    char *dir = test_scratch_dir("muca-bad"), preset[4200];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    test_write_file(preset, json);
    char *output = NULL;
    int rc = test_run_clmc(&output, "run '%s' --quiet --out '%s/out'", preset, dir);
    printf("exit %d: %s", rc, output ? output : "");
    cr_expect_eq(rc, 2, "exit status %d for %s", rc, json);
    cr_expect(output && strstr(output, key), "message does not name %s", key);
    char path[4400];
    snprintf(path, sizeof path, "%s/out", dir);
    cr_expect(!test_path_exists(path), "an output directory was created");
    free(output);
    free(dir);
}

#define ISING_WITH(L, ensemble, run)                                                                                 \
    "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": " #L "}, \"ensemble\": {\"type\": \"multicanonical\", "   \
    "\"betas\": [0.4]" ensemble "}, \"run\": {\"sweeps\": 10" run "}}"

#define WL_WITH(ensemble)                                                                                            \
    "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8}, \"ensemble\": {\"type\": \"wang_landau\", "              \
    "\"betas\": [0.4]" ensemble "}, \"run\": {\"sweeps\": 10}}"

Test(multicanonical, bad_input_exits_2_naming_the_key)
{
    expect_refused(ISING_WITH(8, ", \"flatness\": 0", ""), "ensemble.flatness");
    expect_refused(ISING_WITH(8, ", \"flatness\": 1", ""), "ensemble.flatness");
    expect_refused(ISING_WITH(8, ", \"flatness\": 1.5", ""), "ensemble.flatness");
    expect_refused(ISING_WITH(8, ", \"walkers\": 1", ""), "ensemble.walkers");
    expect_refused(ISING_WITH(8, ", \"walkers\": 0", ""), "ensemble.walkers");
    expect_refused(ISING_WITH(8, ", \"sweeps_per_iteration\": 5", ""), "ensemble.sweeps_per_iteration");
    /* 2^24 walkers of 2^16 spins: 1 TiB of configurations. */
    expect_refused(ISING_WITH(256, ", \"walkers\": 16777216", ""), "ensemble.walkers");
    expect_refused("{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8}, \"ensemble\": {\"type\": "
                   "\"wang_landau\", \"betas\": [0.4], \"flatness\": 1}, \"run\": {\"sweeps\": 10}}",
                   "ensemble.flatness");
    expect_refused("{\"model\": {\"type\": \"heisenberg\", \"dim\": 3, \"L\": 8}, \"ensemble\": {\"type\": "
                   "\"multicanonical\", \"betas\": [0.4]}, \"run\": {\"sweeps\": 10}}",
                   "ensemble.type");
}

/* Wang-Landau windows that do not overlap or cover the energies, and too many walkers per window. */
Test(multicanonical, wang_landau_window_bad_input_exits_2_naming_the_key)
{
    expect_refused(WL_WITH(", \"windows\": 3, \"overlap\": 0"), "ensemble.overlap");
    expect_refused(WL_WITH(", \"windows\": 3, \"overlap\": 1"), "ensemble.overlap");
    expect_refused(WL_WITH(", \"windows\": 3, \"walkers_per_window\": 8388608"), "ensemble.walkers_per_window");
    /* 2 x 2^22 walkers of 2^16 spins: 512 GiB of configurations. */
    expect_refused("{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 256}, \"ensemble\": {\"type\": "
                   "\"wang_landau\", \"betas\": [0.4], \"windows\": 2, \"walkers_per_window\": 4194304}, "
                   "\"run\": {\"sweeps\": 10}}",
                   "ensemble.walkers_per_window");
    expect_refused(WL_WITH(", \"walkers\": 1"), "ensemble.walkers");
    expect_refused(WL_WITH(", \"flatness\": 0"), "ensemble.flatness");
    /* Explicit windows (L = 8: energies -128 .. 128): a gap, no cover at either end, too little overlap, odd count. */
    expect_refused(WL_WITH(", \"window_energies\": [-128, 0, 20, 128]"), "ensemble.window_energies");
    expect_refused(WL_WITH(", \"window_energies\": [-100, 20, 0, 128]"), "ensemble.window_energies");
    expect_refused(WL_WITH(", \"window_energies\": [-128, 20, 0, 100]"), "ensemble.window_energies");
    expect_refused(WL_WITH(", \"window_energies\": [-128, 0, -4, 128]"), "ensemble.window_energies");
    expect_refused(WL_WITH(", \"window_energies\": [-128, 0, -40]"), "ensemble.window_energies");
}

/* 3D Ising L = 4 (no exact density of states here): the ground states (2),
 * the single flips (2N, E_min + 12) and g(E) = g(-E) (bipartite torus), each
 * within 4 standard errors. */
Test(multicanonical, ising3d_L4_ground_states_and_symmetry, .timeout = 900)
{
    cJSON *result = physics_run("{\"model\": {\"type\": \"ising\", \"dim\": 3, \"L\": 4}, \"ensemble\": {\"type\": "
                                "\"multicanonical\", \"betas\": [0.2216546], \"walkers\": 64, \"iteration_sweeps\": 100},"
                                " \"run\": {\"thermalization\": 100, \"sweeps\": 2000, \"seed\": 9}}",
                                "muca-3d-L4");
    const cJSON *dos = cJSON_GetObjectItem(result, "density_of_states");
    const cJSON *energies = cJSON_GetObjectItem(dos, "energies"), *ln_g = cJSON_GetObjectItem(dos, "ln_g"),
                *error = cJSON_GetObjectItem(dos, "error");
    int n = cJSON_GetArraySize(energies), sites = 64;
    cr_assert_gt(n, 2);
    cr_expect_eq(cJSON_GetArrayItem(energies, 0)->valueint, -3 * sites, "lowest energy -3N");
    cr_expect_eq(cJSON_GetArrayItem(energies, 1)->valueint, -3 * sites + 12, "next: one flipped spin");
    double z = physics_compare("multicanonical 3D L=4 ln g(E_min)", cJSON_GetArrayItem(ln_g, 0)->valuedouble,
                               cJSON_GetArrayItem(error, 0)->valuedouble, log(2.0));
    cr_expect_lt(z, TOLERANCE_SIGMA);
    z = physics_compare("multicanonical 3D L=4 ln g(E_min + 12)", cJSON_GetArrayItem(ln_g, 1)->valuedouble,
                        cJSON_GetArrayItem(error, 1)->valuedouble, log(2.0 * sites));
    cr_expect_lt(z, TOLERANCE_SIGMA);
    double worst = 0;
    for (int i = 0; i < n / 2; i++) {
        int j = n - 1 - i;
        cr_expect_eq(cJSON_GetArrayItem(energies, i)->valueint, -cJSON_GetArrayItem(energies, j)->valueint,
                     "energies symmetric");
        double a = cJSON_GetArrayItem(ln_g, i)->valuedouble, b = cJSON_GetArrayItem(ln_g, j)->valuedouble;
        double ea = cJSON_GetArrayItem(error, i)->valuedouble, eb = cJSON_GetArrayItem(error, j)->valuedouble;
        worst = fmax(worst, fabs(a - b) / sqrt(ea * ea + eb * eb));
    }
    printf("multicanonical 3D L=4: %d energies, largest |z| of ln g(E) - ln g(-E) %.2f\n", n, worst);
    cr_expect_lt(worst, TOLERANCE_SIGMA);
    cJSON_Delete(result);
}

/* The 2D Ising walkers of cl/ising/muca_ising.cl at edge L as one char per
 * site, or as bit rows (WALKER_ROWS, the layout src/models/ising/ising.c
 * picks for 4 <= L <= 64), with the group histograms in local memory (the
 * rule of density_walkers.c) or forced global, and with `windows` > 1 the
 * walkers of a Wang-Landau run with that many energy windows in its
 * production (muca_set_weights: every window the same weights, open
 * bounds; the launches go to the program of one window that muca_open
 * builds beside the windowed one): 99 walkers (a padded last group) under
 * uneven weights, 3 sweeps
 * unrecorded then 7 recorded; the block histograms and the walkers'
 * energies after them. */
typedef struct {
    unsigned walkers;    /* 99 in the layouts test */
    size_t local_memory; /* muca.local_memory: the local memory the group rule assumes (0: the device's) */
    size_t group;        /* out: walkers per work-group */
} layout_options;

static void run_layout_with(int L, bool rows, bool global_histogram, unsigned windows, layout_options *o,
                            double *hist, cl_int *energies, unsigned *bins)
{
    unsigned n = (unsigned)(L * L), walkers = o->walkers;
    char defines[96];
    snprintf(defines, sizeof defines, "-cl-std=CL1.2 -DDIM=2 -DEDGE=%d%s", L, rows ? " -DWALKER_ROWS" : "");
    clmc_runtime *rt = NULL;
    cr_assert_eq(clmc_runtime_open(NULL, &rt), CLMC_OK, "%s", clmc_error_message());
    const char *json = "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8}, \"ensemble\": {\"type\": "
                       "\"multicanonical\", \"betas\": [0.4]}, \"run\": {\"seed\": 11}}";
    clmc_preset *preset = NULL;
    cr_assert_eq(clmc_preset_parse(json, strlen(json), "layouts", NULL, 0, &preset), CLMC_OK, "%s",
                 clmc_error_message());
    muca m = {.rt = rt,
              .settings = {.walkers = walkers,
                           .wang_landau = windows > 1,
                           .windows = windows > 1 ? windows : 1,
                           .overlap = 0.5,
                           .walkers_per_window = walkers / (windows > 1 ? windows : 1)},
              .model = {.program = "ising/muca_ising.cl",
                        .defines = defines,
                        .e_min = -2 * (int)n,
                        .e_step = 4,
                        .n_bins = n + 1,
                        .max_bin_step = 2,
                        .sites = n,
                        .log_states = n * log(2.0),
                        .walker_bytes = rows ? (size_t)L * (L <= 32 ? 4 : 8) : n},
              .global_histogram = global_histogram,
              .local_memory = o->local_memory};
    cr_assert_eq(muca_layout(&m), CLMC_OK, "%s", clmc_error_message());
    o->group = m.group;
    cr_assert_eq(m.windows, windows > 1 ? windows : 1);
    cr_assert_eq(muca_check(&m), CLMC_OK, "%s", clmc_error_message());
    cr_assert_eq(muca_open(&m, preset), CLMC_OK, "%s", clmc_error_message());
    double *ln_w = malloc((n + 1) * sizeof *ln_w);
    float *scratch = malloc((size_t)m.windows * (n + 1) * sizeof *scratch); /* muca_set_weights: every window */
    for (unsigned i = 0; i <= n; i++) ln_w[i] = 0.8 * sin(0.37 * i) - 0.004 * i;
    cr_assert_eq(muca_set_weights(&m, ln_w, scratch), CLMC_OK, "%s", clmc_error_message());
    cr_assert_eq(muca_sweep(&m, 3, 0, NULL), CLMC_OK, "%s", clmc_error_message());
    cr_assert_eq(muca_sweep(&m, 7, 1, hist), CLMC_OK, "%s", clmc_error_message());
    cr_assert_eq(clEnqueueReadBuffer(clmc_runtime_queue(rt), m.energy, CL_TRUE, 0, walkers * sizeof(cl_int), energies,
                                     0, NULL, NULL),
                 CL_SUCCESS);
    *bins = m.blocks * (n + 1);
    free(ln_w);
    free(scratch);
    muca_close(&m);
    clmc_preset_free(preset);
    clmc_runtime_close(rt);
}

static void run_layout(int L, bool rows, bool global_histogram, unsigned windows, double *hist, cl_int *energies,
                       unsigned *bins)
{
    layout_options o = {.walkers = 99};
    run_layout_with(L, rows, global_histogram, windows, &o, hist, energies, bins);
}

/* The group rule of density_walkers.c on a device whose local memory takes
 * the histogram only at 1/2 (as 2D Ising L = 64 on 48 KiB): groups of 256
 * walkers with the histogram in local memory count block for block as the
 * same groups with the global histogram, and the walkers end where groups
 * of 64 (the device's own rule here) leave them; 8291 walkers, so the last
 * group is partly filled. */
Test(multicanonical, groups_of_256_with_local_histograms_count_alike, .timeout = 600)
{
    const int L = 8;
    enum { VARIANTS = 3, WALKERS = 8291 };
    unsigned n = (unsigned)(L * L), bins[VARIANTS];
    size_t half = 2 * (n + 1) * sizeof(cl_uint); /* the histogram takes half of it */
    layout_options options[VARIANTS] = {{WALKERS, half, 0}, {WALKERS, half, 0}, {WALKERS, 0, 0}};
    const char *names[VARIANTS] = {"groups of 256, local histograms", "groups of 256, global histogram",
                                   "the device's groups"};
    double *hist[VARIANTS], total[VARIANTS] = {0};
    cl_int *energies[VARIANTS];
    for (int v = 0; v < VARIANTS; v++) {
        hist[v] = calloc((size_t)32 * (n + 1), sizeof *hist[v]);
        energies[v] = malloc(WALKERS * sizeof *energies[v]);
        run_layout_with(L, true, v == 1, 1, &options[v], hist[v], energies[v], &bins[v]);
        for (unsigned i = 0; i < bins[v]; i++) total[v] += hist[v][i];
        printf("%s: %zu walkers per group, %.0f updates counted (%d walkers x %u sites x 7 sweeps = %.0f)\n", names[v],
               options[v].group, total[v], WALKERS, n, (double)WALKERS * n * 7);
        cr_expect_eq(total[v], (double)WALKERS * n * 7, "%s: one count per update expected", names[v]);
    }
    cr_expect_eq(options[0].group, 256, "the rule gave groups of %zu", options[0].group);
    cr_expect_lt(options[2].group, 256, "the device's rule gave groups of %zu", options[2].group);
    cr_assert_eq(bins[1], bins[0]);
    cr_expect(memcmp(hist[1], hist[0], bins[0] * sizeof(double)) == 0, "block histograms of %s and %s differ", names[1],
              names[0]);
    for (int v = 1; v < VARIANTS; v++)
        cr_expect(memcmp(energies[v], energies[0], WALKERS * sizeof(cl_int)) == 0, "energies of %s and %s differ",
                  names[v], names[0]);
    for (int v = 0; v < VARIANTS; v++) free(hist[v]), free(energies[v]);
}

Test(multicanonical, walker_layouts_and_histogram_paths_count_bit_for_bit_alike, .timeout = 600)
{
    /* 32-bit rows (the column counted along in cl/ising/muca_ising.cl in
     * steps of 2 at L = 6; of 1 at L = 7, with a partial last draw per
     * sweep; 8: a power of two) and 64-bit rows (36: steps of 4) */
    const int edges[] = {6, 7, 8, 36};
    for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++) {
        int L = edges[k];
        enum { VARIANTS = 5 };
        unsigned n = (unsigned)(L * L), bins[VARIANTS];
        const char *names[VARIANTS] = {"one char per site", "bit rows", "bit rows, global histogram",
                                       "bit rows, 3 windows in production",
                                       "bit rows, 3 windows in production, global histogram"};
        double *hist[VARIANTS];
        cl_int energies[VARIANTS][99];
        for (int v = 0; v < VARIANTS; v++) {
            hist[v] = calloc((size_t)32 * (n + 1), sizeof *hist[v]);
            run_layout(L, v > 0, v == 2 || v == 4, v >= 3 ? 3 : 1, hist[v], energies[v], &bins[v]);
        }
        double total = 0, changed = 0;
        for (unsigned i = 0; i < bins[0]; i++) total += hist[0][i];
        for (int w = 0; w < 99; w++) changed += energies[0][w] != -2 * (int)n;
        printf("layouts L=%d: %.0f updates counted (99 walkers x %u sites x 7 sweeps = %.0f), walker 0 at E = %d\n", L,
               total, n, 99.0 * n * 7, energies[0][0]);
        cr_expect_eq(total, 99.0 * n * 7, "L=%d: %.0f counts, one per update expected", L, total);
        cr_expect(changed > 0, "L=%d: every walker in a ground state", L);
        for (int v = 1; v < VARIANTS; v++) {
            cr_assert_eq(bins[v], bins[0]);
            cr_expect(memcmp(hist[v], hist[0], bins[0] * sizeof(double)) == 0, "L=%d: histograms of %s and %s differ",
                      L, names[v], names[0]);
            cr_expect(memcmp(energies[v], energies[0], sizeof energies[0]) == 0, "L=%d: energies of %s and %s differ",
                      L, names[v], names[0]);
        }
        for (int v = 0; v < VARIANTS; v++) free(hist[v]);
    }
}

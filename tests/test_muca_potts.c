/* Multicanonical walkers of the Potts model (cl/potts/muca_potts.cl): q = 2
 * against the exact 2D Ising density of states (E_Potts = -N + E_Ising / 2),
 * q = 10 at L = 8 against the exact counts of the lowest energies, with a
 * double-peaked energy histogram at the pseudo-transition and Wang-Landau in
 * 3 windows agreeing with multicanonical, and (opt-in,
 * CLMC_LONG_TESTS=1) the latent heat from the peak positions at L = 16 and
 * 24 approaching Baxter's infinite-volume value. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ising_dos.h"
#include "physics.h"
#include "testenv.h"

#define TOLERANCE_SIGMA 4.0
/* q = 10, L = 8: the histogram's minimum between the peaks lies at least this
 * fraction below them at the equal-height temperature (measured: about 0.9). */
#define MIN_DIP 0.3

enum { MAX_ENERGIES = 2 * 24 * 24 + 1 };

#define POTTS_PRESET(L, q, walkers, sweeps, seed)                                                                    \
    "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": " #L ", \"q\": " #q "}, \"algorithm\": {\"type\": "        \
    "\"metropolis\"}, \"ensemble\": {\"type\": \"multicanonical\", \"betas\": [1.0, 1.4], \"walkers\": " #walkers     \
    ", \"flatness\": 0.5, \"iteration_sweeps\": 100, \"max_iterations\": 10000}, \"run\": {\"thermalization\": 100,"  \
    " \"sweeps\": " #sweeps ", \"seed\": " #seed "}}"

typedef struct {
    int n, energies[MAX_ENERGIES];
    double ln_g[MAX_ENERGIES], error[MAX_ENERGIES];
} dos;

static void read_dos(const cJSON *result, dos *d)
{
    const cJSON *json = cJSON_GetObjectItem(result, "density_of_states");
    d->n = cJSON_GetArraySize(cJSON_GetObjectItem(json, "energies"));
    cr_assert(d->n > 0 && d->n <= MAX_ENERGIES, "%d energies", d->n);
    for (int i = 0; i < d->n; i++) {
        d->energies[i] = cJSON_GetArrayItem(cJSON_GetObjectItem(json, "energies"), i)->valueint;
        d->ln_g[i] = cJSON_GetArrayItem(cJSON_GetObjectItem(json, "ln_g"), i)->valuedouble;
        d->error[i] = cJSON_GetArrayItem(cJSON_GetObjectItem(json, "error"), i)->valuedouble;
    }
}

static int index_of(const dos *d, int energy)
{
    for (int i = 0; i < d->n; i++)
        if (d->energies[i] == energy) return i;
    return -1;
}

Test(muca_potts, q2_L8_matches_exact_ising_density_of_states, .timeout = 900)
{
    const int L = 8, sites = L * L;
    int exact_energies[2 * 8 * 8 + 1];
    double exact_ln_g[2 * 8 * 8 + 1];
    int n = ising2d_exact_dos(L, exact_energies, exact_ln_g, 2 * 8 * 8 + 1);
    cr_assert(n > 0);
    cJSON *result = physics_run(POTTS_PRESET(8, 2, 64, 4000, 3), "muca-potts-q2-L8");
    dos d;
    read_dos(result, &d);
    cr_assert_eq(d.n, n, "%d energies, the Ising model has %d", d.n, n);
    double worst = 0;
    for (int i = 0; i < n; i++) {
        int potts_energy = -sites + exact_energies[i] / 2;
        cr_assert_eq(d.energies[i], potts_energy, "energy %d: %d, expected %d", i, d.energies[i], potts_energy);
        char what[96];
        snprintf(what, sizeof what, "Potts q=2 L=8 ln g(%d) (Ising E=%d)", potts_energy, exact_energies[i]);
        double z = physics_compare(what, d.ln_g[i], d.error[i], exact_ln_g[i]);
        worst = fmax(worst, z);
        cr_expect_lt(z, TOLERANCE_SIGMA, "%s", what);
    }
    printf("Potts q=2 L=8: largest |z| of ln g %.2f\n", worst);
    cJSON_Delete(result);
}

/* P_beta(E) ~ g(E) e^{-beta E} (ln, maximum 0) into h. */
static void reweight(const dos *d, double beta, double *h)
{
    double top = -INFINITY;
    for (int i = 0; i < d->n; i++) top = fmax(top, h[i] = d->ln_g[i] - beta * d->energies[i]);
    for (int i = 0; i < d->n; i++) h[i] -= top;
}

/* The ordered (E < split) and disordered peaks of P_beta. */
static void peaks(const dos *d, const double *h, int split, int *ordered, int *disordered)
{
    *ordered = *disordered = -1;
    for (int i = 0; i < d->n; i++) {
        int *peak = d->energies[i] < split ? ordered : disordered;
        if (*peak < 0 || h[i] > h[*peak]) *peak = i;
    }
}

/* The pseudo-transition beta where the two peaks are equal (bisection), the
 * peaks' energies and the histogram's minimum between them relative to them. */
static double equal_height(const dos *d, int split, int *ordered, int *disordered, double *dip)
{
    double lo = 0.5, hi = 3, h[MAX_ENERGIES], beta = 0;
    for (int it = 0; it < 80; it++) {
        beta = (lo + hi) / 2;
        reweight(d, beta, h);
        peaks(d, h, split, ordered, disordered);
        if (h[*ordered] > h[*disordered]) hi = beta; /* too cold */
        else lo = beta;
    }
    double low = 0;
    for (int i = *ordered; i <= *disordered; i++) low = fmin(low, h[i]);
    *dip = 1 - exp(low);
    return beta;
}

/* Exact counts for the q-state Potts model on the L x L torus (L >= 4):
 * ground states q; one site changed: 4 bonds broken, q N (q - 1); two
 * neighbours changed to one new state: 6 broken, 2N q (q - 1); to two
 * different states: 7 broken, 2N q (q - 1)(q - 2); nothing at 1, 2, 3, 5. */
static void expect_lowest_energies(const dos *d, int sites, int q, const char *what)
{
    int e0 = -2 * sites;
    double exact[8] = {log(q), NAN, NAN, NAN, log((double)q * sites * (q - 1)), NAN, log(2.0 * sites * q * (q - 1)),
                       log(2.0 * sites * q * (q - 1) * (q - 2))};
    for (int k = 0; k < 8; k++) {
        int i = index_of(d, e0 + k);
        if (isnan(exact[k])) {
            cr_expect_lt(i, 0, "%s: energy %d has no configurations but is listed", what, e0 + k);
            continue;
        }
        cr_assert_geq(i, 0, "%s: energy %d missing", what, e0 + k);
        char label[96];
        snprintf(label, sizeof label, "%s ln g(E_min + %d)", what, k);
        cr_expect_lt(physics_compare(label, d->ln_g[i], d->error[i], exact[k]), TOLERANCE_SIGMA, "%s", label);
    }
}

Test(muca_potts, q10_L8_lowest_energies_exact_double_peak_and_windows_agree, .timeout = 900)
{
    const int L = 8, q = 10, sites = L * L;
    cJSON *result = physics_run(POTTS_PRESET(8, 10, 64, 4000, 5), "muca-potts-q10-L8");
    dos d;
    read_dos(result, &d);
    expect_lowest_energies(&d, sites, q, "Potts q=10 L=8");
    int ordered, disordered;
    double dip, beta = equal_height(&d, -sites * 4 / 3, &ordered, &disordered, &dip);
    printf("Potts q=10 L=8: equal peaks at beta %.4f (infinite L: ln(1 + sqrt 10) = %.4f), peaks at e = %.4f and "
           "%.4f, minimum between them %.1f %% below\n",
           beta, log(1 + sqrt(10.0)), (double)d.energies[ordered] / sites, (double)d.energies[disordered] / sites,
           100 * dip);
    cr_expect_lt(d.energies[ordered], d.energies[disordered], "two peaks");
    cr_expect_gt(dip, MIN_DIP, "the histogram at the pseudo-transition is double-peaked with a dip of %.3f", dip);
    /* Wang-Landau in 3 windows with replica exchange: the same exact counts and
     * the multicanonical ln g within 4 combined standard errors at every energy. */
    cJSON *windowed = physics_run("{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 8, \"q\": 10}, \"algorithm\": "
                                  "{\"type\": \"metropolis\"}, \"ensemble\": {\"type\": \"wang_landau\", \"betas\": [1.4], "
                                  "\"windows\": 3, \"walkers_per_window\": 16, \"final_ln_f\": 1e-3}, \"run\": "
                                  "{\"thermalization\": 100, \"sweeps\": 4000, \"seed\": 5}}",
                                  "wl-windows-potts-q10-L8");
    dos w;
    read_dos(windowed, &w);
    expect_lowest_energies(&w, sites, q, "Potts q=10 L=8 Wang-Landau 3 windows");
    cr_assert_eq(w.n, d.n, "as many energies: %d, %d", w.n, d.n);
    double worst = 0;
    for (int i = 0; i < d.n; i++) {
        cr_expect_eq(w.energies[i], d.energies[i]);
        double z = fabs(w.ln_g[i] - d.ln_g[i]) / sqrt(w.error[i] * w.error[i] + d.error[i] * d.error[i]);
        worst = fmax(worst, z);
        cr_expect_lt(z, TOLERANCE_SIGMA, "E=%d: %.4f +- %.4f vs %.4f +- %.4f", d.energies[i], w.ln_g[i], w.error[i],
                     d.ln_g[i], d.error[i]);
    }
    printf("Potts q=10 L=8: Wang-Landau 3 windows vs multicanonical, largest |z| %.2f over %d energies\n", worst, d.n);
    cJSON_Delete(windowed);
    cJSON_Delete(result);
}

/* Baxter (1973): the latent heat per site of the 2D q-state Potts model for
 * q > 4, in units of J, with cosh theta = sqrt(q) / 2:
 * 2 (1 + 1/sqrt q) tanh(theta / 2) prod_{n >= 1} tanh^2(n theta). */
static double baxter_latent_heat(int q)
{
    double theta = acosh(sqrt((double)q) / 2), product = 1;
    for (int n = 1; n < 200; n++) product *= tanh(n * theta) * tanh(n * theta);
    return 2 * (1 + 1 / sqrt((double)q)) * tanh(theta / 2) * product;
}

/* Opt-in: CLMC_LONG_TESTS=1 (many minutes on PoCL). */
Test(muca_potts, q10_latent_heat_approaches_baxter, .timeout = 7200)
{
    TEST_LONG_ONLY();
    const double exact = baxter_latent_heat(10);
    printf("Baxter's latent heat for q=10: %.6f\n", exact);
    const char *presets[] = {POTTS_PRESET(16, 10, 128, 20000, 7), POTTS_PRESET(24, 10, 128, 20000, 8)};
    const int edges[] = {16, 24};
    double previous = INFINITY;
    for (int k = 0; k < 2; k++) {
        int L = edges[k], sites = L * L;
        cJSON *result = physics_run(presets[k], k ? "muca-potts-q10-L24" : "muca-potts-q10-L16");
        dos d;
        read_dos(result, &d);
        int ordered, disordered;
        double dip, beta = equal_height(&d, -sites * 4 / 3, &ordered, &disordered, &dip);
        double latent = (double)(d.energies[disordered] - d.energies[ordered]) / sites;
        printf("Potts q=10 L=%d: equal peaks at beta %.4f, e = %.4f and %.4f: latent heat %.4f (exact %.4f, "
               "off by %.4f), dip %.1f %%\n",
               L, beta, (double)d.energies[ordered] / sites, (double)d.energies[disordered] / sites, latent, exact,
               latent - exact, 100 * dip);
        cr_expect_lt(fabs(latent - exact), previous, "L=%d: the latent heat approaches Baxter's", L);
        previous = fabs(latent - exact);
        cJSON_Delete(result);
    }
}

/* Population annealing of the EA spin glass with many members per
 * multi-spin word (algorithm.layout "msc", docs/ensembles.md): the bit
 * gather of cl/ensembles/population_lanes.cl on irregular copy numbers
 * against the host at two work-group sizes; energies and free energy at
 * every step against the naive layout on the same disorder (different
 * random numbers: within standard errors), uniform couplings against exact
 * 2D Ising; the members measured by the last sweep's colour-1 pass equal
 * the measurement kernels' bit for bit; bad input exits 2 naming the key;
 * checkpoint/resume bit for bit. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/runtime.h"
#include "ising_exact.h"
#include "physics.h"
#include "rerun.h"
#include "testenv.h"

#define TOLERANCE_SIGMA 4.0

/* ---- The bit gather ----------------------------------------------------- */

/* Member m's bit at word w of its group: a hash, so wrong lanes or words show. */
static unsigned member_bit(unsigned m, unsigned w)
{
    unsigned x = (m + 1) * 2654435761u ^ (w + 7) * 40503u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    return (x >> 15) & 1u;
}

/* Copy numbers with zeros (a whole group of them), single copies, a family
 * of 150 and families of 2 and 3; new member j = old source[j]; every lane
 * of the gathered words (lanes past n_new: 0) as on the host, for words of
 * `lanes` bits, groups of `group_words` words, work-groups of `wg`. */
static void gather_case(unsigned lanes, unsigned group_words, unsigned wg)
{
    enum { N = 640 }; /* old members; capacity N, 10 groups of 64 or 20 of 32 */
    unsigned copies[N], n_new = 0;
    static unsigned source[N];
    for (unsigned i = 0; i < N; i++) copies[i] = i < 70 ? 0 : (i % 7 == 0 ? 3 : (i % 5 == 0 ? 0 : (i % 11 == 0 ? 2 : 1)));
    copies[333] = 150;
    for (unsigned i = 0; i < N && n_new < N; i++)
        for (unsigned c = 0; c < copies[i] && n_new < N - 17; c++) source[n_new++] = i; /* the last group partly */
    unsigned groups = N / lanes, word_bytes = lanes / 8;
    size_t bytes = (size_t)groups * group_words * word_bytes;
    unsigned char *from = calloc(1, bytes), *to = calloc(1, bytes);
    for (unsigned m = 0; m < N; m++)
        for (unsigned w = 0; w < group_words; w++) {
            size_t word = (size_t)(m / lanes) * group_words + w;
            unsigned bit = m % lanes;
            if (member_bit(m, w)) from[word * word_bytes + bit / 8] |= (unsigned char)(1u << (bit % 8));
        }
    clmc_runtime *rt;
    cl_program program;
    cl_kernel kernel;
    cr_assert_eq(clmc_runtime_open(NULL, &rt), CLMC_OK, "%s", clmc_error_message());
    char options[160];
    snprintf(options, sizeof options, "-cl-std=CL1.2 -DLANE_BITS=%u -DGROUP_WORDS=%u -DGATHER_WG=%u", lanes,
             group_words, wg);
    cr_assert_eq(clmc_program_build(rt, "ensembles/population_lanes.cl", options, &program), CLMC_OK, "%s",
                 clmc_error_message());
    cr_assert_eq(clmc_kernel_create(program, "pa_gather_lanes", &kernel), CLMC_OK);
    cl_mem b_from, b_to, b_source;
    cr_assert_eq(clmc_buffer_create(rt, bytes, from, "test", &b_from), CLMC_OK);
    cr_assert_eq(clmc_buffer_create(rt, bytes, NULL, "test", &b_to), CLMC_OK);
    cr_assert_eq(clmc_buffer_create(rt, sizeof source, source, "test", &b_source), CLMC_OK);
    clSetKernelArg(kernel, 0, sizeof b_from, &b_from);
    clSetKernelArg(kernel, 1, sizeof b_to, &b_to);
    clSetKernelArg(kernel, 2, sizeof b_source, &b_source);
    clSetKernelArg(kernel, 3, sizeof n_new, &n_new);
    size_t global[2] = {(group_words + wg - 1) / wg * wg, groups}, local[2] = {wg, 1};
    cr_assert_eq(clmc_enqueue(rt, kernel, 2, global, local, CLMC_UNTIMED), CLMC_OK, "%s", clmc_error_message());
    cr_assert_eq(clEnqueueReadBuffer(clmc_runtime_queue(rt), b_to, CL_TRUE, 0, bytes, to, 0, NULL, NULL), CL_SUCCESS);
    unsigned wrong = 0;
    for (unsigned j = 0; j < N; j++)
        for (unsigned w = 0; w < group_words; w++) {
            size_t word = (size_t)(j / lanes) * group_words + w;
            unsigned bit = j % lanes, got = (to[word * word_bytes + bit / 8] >> (bit % 8)) & 1u;
            unsigned expected = j < n_new ? member_bit(source[j], w) : 0;
            if (got != expected && wrong++ < 5) printf("member %u word %u: %u, expected %u\n", j, w, got, expected);
        }
    printf("bit gather: %u-bit lanes, %u words per group, work-groups of %u: %u of %u new members, %u wrong bits\n",
           lanes, group_words, wg, n_new, N, wrong);
    cr_expect_eq(wrong, 0);
    clReleaseMemObject(b_from), clReleaseMemObject(b_to), clReleaseMemObject(b_source);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clmc_runtime_close(rt);
    free(from), free(to);
}

Test(population_msc, bit_gather_on_irregular_copy_numbers, .timeout = 300)
{
    gather_case(64, 24, 8);
    gather_case(64, 24, 32); /* 8 work-items past the group's words */
    gather_case(32, 40, 8);
    gather_case(32, 40, 64);
}

/* ---- Physics ------------------------------------------------------------ */

/* Anneals of one 3D EA disorder realization (L = 4, the couplings of
 * run.seed) in both layouts, beta 0 to 1 in 20 steps: energy and free
 * energy at every step within 4 combined standard errors (errors from the
 * runs); different random numbers, so not bit for bit.  Steps of 0.05
 * keep enough families (coarse steps collapse the population onto a few,
 * and the runs' Z-weighted errors then mean little). */
static void msc_against_naive(int word_bits, int population, int runs, int seed, const char *msc_keys)
{
    const char *layouts[2] = {"msc", "naive"};
    cJSON *result[2];
    for (int l = 0; l < 2; l++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4}, \"algorithm\": {\"type\": \"metropolis\", "
                 "\"layout\": \"%s\", \"word_bits\": %d%s}, \"ensemble\": {\"type\": \"population_annealing\", "
                 "\"population\": %d, \"beta_end\": 1.0, \"steps\": 20, \"sweeps_per_step\": 5, \"runs\": %d}, "
                 "\"run\": {\"seed\": %d}}",
                 layouts[l], word_bits, l == 0 ? msc_keys : "", population, runs, seed);
        result[l] = physics_run(json, "pa-ea-msc-naive");
    }
    const cJSON *t[2];
    for (int l = 0; l < 2; l++) t[l] = cJSON_GetObjectItem(cJSON_GetObjectItem(result[l], "observables"), "temperatures");
    cr_assert_eq(cJSON_GetArraySize(t[0]), 21);
    cr_assert_eq(cJSON_GetArraySize(t[1]), 21);
    double worst = 0;
    for (int k = 0; k <= 20; k++) {
        const cJSON *a = cJSON_GetArrayItem(t[0], k), *b = cJSON_GetArrayItem(t[1], k);
        double beta = cJSON_GetObjectItem(a, "beta")->valuedouble;
        const char *names[2] = {"energy", "free_energy"};
        for (int q = 0; q < 2; q++) {
            double ma = physics_mean(a, names[q]), mb = physics_mean(b, names[q]);
            if (k == 0) { /* the same random start in both layouts; ln Z(0) exact */
                cr_expect(ma == mb, "beta 0 %s: msc %.17g, naive %.17g", names[q], ma, mb);
                continue;
            }
            double ea = physics_error(a, names[q]), eb = physics_error(b, names[q]);
            char what[200];
            snprintf(what, sizeof what, "EA3d L=4 W=%d%s R=%d x%d beta=%.3f %s: msc %.5f +- %.5f, naive %.5f +- %.5f; "
                     "difference", word_bits, msc_keys, population, runs, beta, names[q], ma, ea, mb, eb);
            double z = physics_compare(what, ma - mb, sqrt(ea * ea + eb * eb), 0);
            worst = fmax(worst, z);
            cr_expect_leq(z, TOLERANCE_SIGMA, "%s", what);
        }
    }
    printf("EA3d msc (W=%d%s) against naive: largest |z| %.2f over 20 steps x 2 observables\n", word_bits, msc_keys,
           worst);
    cJSON_Delete(result[0]);
    cJSON_Delete(result[1]);
}

Test(population_msc, ea3d_matches_naive_layout, .timeout = 600)
{
    msc_against_naive(64, 512, 10, 7, "");
}

/* The same with algorithm.rng "lcg64_reseeded" (the resident update's
 * lanes drawing from an LCG64 per work-item and launch) on the msc side. */
Test(population_msc, ea3d_lcg64_reseeded_matches_naive_layout, .timeout = 600)
{
    msc_against_naive(64, 512, 10, 7, ", \"resident\": \"on\", \"rng\": \"lcg64_reseeded\"");
}

/* Uniform couplings (the ferromagnet; refused for msc without population
 * annealing, whose lanes share their numbers there) against exact 2D Ising
 * at L = 8: energy, specific heat and free energy per spin of one replica
 * at every step (`keys`: more algorithm keys, such as the lcg64_reseeded
 * option; errors from `runs` runs). */
static void uniform_against_exact(const char *keys, int runs)
{
    enum { STEPS = 12 };
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 8, \"couplings\": \"uniform\"}, "
             "\"algorithm\": {\"type\": \"metropolis\", \"layout\": \"msc\", \"word_bits\": 32%s}, "
             "\"ensemble\": {\"type\": \"population_annealing\", \"population\": 384, "
             "\"beta_end\": 0.6, \"steps\": 12, \"sweeps_per_step\": 10, \"runs\": %d}, \"run\": {\"seed\": 23}}",
             keys, runs);
    cJSON *result = physics_run(json, "pa-ea-msc-uniform");
    const cJSON *temperatures = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures");
    cr_assert_eq(cJSON_GetArraySize(temperatures), STEPS + 1);
    for (int k = 1; k <= STEPS; k++) {
        const cJSON *entry = cJSON_GetArrayItem(temperatures, k);
        double beta = cJSON_GetObjectItem(entry, "beta")->valuedouble, e, c;
        ising2d_exact(8, beta, &e, &c);
        char label[160], what[256];
        snprintf(label, sizeof label, "PA ea uniform msc%s L=8 R=384 x%d", keys, runs);
        snprintf(what, sizeof what, "%s beta=%.3f energy", label, beta);
        cr_expect_leq(physics_compare(what, physics_mean(entry, "energy"), physics_error(entry, "energy"), e),
                      TOLERANCE_SIGMA, "%s", what);
        snprintf(what, sizeof what, "%s beta=%.3f specific_heat", label, beta);
        cr_expect_leq(physics_compare(what, physics_mean(entry, "specific_heat"), physics_error(entry, "specific_heat"),
                                      c), TOLERANCE_SIGMA, "%s", what);
        snprintf(what, sizeof what, "%s beta=%.3f free_energy", label, beta);
        cr_expect_leq(physics_compare(what, physics_mean(entry, "free_energy"), physics_error(entry, "free_energy"),
                                      -ising2d_exact_log_z(8, beta) / 64.0), TOLERANCE_SIGMA, "%s", what);
    }
    cJSON_Delete(result);
}

Test(population_msc, ea_uniform_matches_exact_ising_L8, .timeout = 600)
{
    uniform_against_exact("", 8);
}

Test(population_msc, ea_uniform_lcg64_reseeded_matches_exact_ising_L8, .timeout = 600)
{
    uniform_against_exact(", \"resident\": \"on\", \"rng\": \"lcg64_reseeded\"", 16);
}

/* ---- The member pass ------------------------------------------------------ */

/* Runs the two presets (labels for their folders): results and observables. */
static void run_two(char json[2][1024], const char *const labels[2], cJSON *result[2], char *observables[2])
{
    for (int i = 0; i < 2; i++) {
        result[i] = physics_run(json[i], labels[i]);
        observables[i] = cJSON_PrintUnformatted(cJSON_GetObjectItem(result[i], "observables"));
    }
}

/* Two runs that must be the same bit for bit: equal final configurations
 * (hashes) and observables; frees both. */
static void expect_same_run(cJSON *result[2], char *observables[2], const char *hash[2])
{
    cr_expect_str_eq(hash[0], hash[1], "final configurations differ");
    cr_expect_str_eq(observables[0], observables[1], "observables differ");
    for (int i = 0; i < 2; i++) {
        free(observables[i]);
        cJSON_Delete(result[i]);
    }
}

/* The members' energies and overlaps come from the colour-1 pass of each
 * step's last sweep (ea_msc_member_update).  algorithm.tempering_energies
 * "check" measures them again with the measurement kernels
 * (ea_msc_measure, ea_sum_groups, ea_member_totals) and counts the members
 * whose energy or overlap differ (must be none); "measure" (the separate
 * measurement only) must give the same run bit for bit: observables and
 * final configurations.  Cases: one work-group per word storing (3D L = 8,
 * energy_sites 2), two adding atomically (energy_sites 1), four in 2D
 * L = 32 with 32-bit words and nearest_integer (the last word partly
 * filled). */
static void member_pass_case(int dim, int edge, int word_bits, int sites, const char *resampling)
{
    enum { POPULATION = 128, STEPS = 4 };
    const char *modes[2] = {"check", "measure"};
    char json[2][1024];
    for (int i = 0; i < 2; i++)
        snprintf(json[i], sizeof json[i],
                 "{\"model\": {\"type\": \"ea_ising\", \"dim\": %d, \"L\": %d}, \"algorithm\": {\"type\": "
                 "\"metropolis\", \"layout\": \"msc\", \"word_bits\": %d, \"tempering_energies\": \"%s\", "
                 "\"energy_sites\": %d}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": %d, "
                 "\"beta_end\": 1.5, \"steps\": %d, \"sweeps_per_step\": 3, \"resampling\": \"%s\"}, "
                 "\"run\": {\"seed\": 19}}",
                 dim, edge, word_bits, modes[i], i == 0 ? sites : 0, POPULATION, STEPS, resampling);
    cJSON *result[2];
    char *observables[2];
    run_two(json, (const char *[]){"pa-ea-msc-member-check", "pa-ea-msc-member-measure"}, result, observables);
    const cJSON *checks[2] = {cJSON_GetObjectItem(result[0], "checks"), cJSON_GetObjectItem(result[1], "checks")};
    double checked = cJSON_GetObjectItem(checks[0], "energy_pass_checked")->valuedouble;
    double mismatches = cJSON_GetObjectItem(checks[0], "energy_pass_mismatches")->valuedouble;
    const char *hash[2] = {cJSON_GetObjectItem(checks[0], "configuration_fnv1a")->valuestring,
                           cJSON_GetObjectItem(checks[1], "configuration_fnv1a")->valuestring};
    printf("member pass %dD L=%d W=%d energy_sites %d %s: %g member measurements checked over %d steps, %g differ "
           "from the measurement kernels; against the measured run: hashes %s %s, observables %s\n",
           dim, edge, word_bits, sites, resampling, checked, STEPS, mismatches, hash[0], hash[1],
           strcmp(observables[0], observables[1]) == 0 ? "identical" : "different");
    cr_expect_geq(checked, (double)POPULATION * STEPS, "the member pass ran at fewer steps");
    cr_expect_eq(mismatches, 0, "%g members' energy or overlap differ", mismatches);
    expect_same_run(result, observables, hash);
}

Test(population_msc, member_pass_equals_measurement, .timeout = 300)
{
    member_pass_case(3, 8, 64, 2, "systematic");
    member_pass_case(3, 8, 64, 1, "systematic");
    member_pass_case(2, 32, 32, 1, "nearest_integer");
}

/* The resident update (algorithm.resident "on": a step's sweeps in one
 * launch, each word's two stacks in local memory, a pass in rounds whose
 * words still tied after their first planes are finished over the group,
 * the members measured after the last pass) against the ordinary launches
 * ("off"): the same run bit for bit (observables, with the family
 * diagnostics, and the final configurations).  Cases: 3D L = 8 (one round
 * of 256 work-items a pass, and 16 rounds of 16), 2D L = 12 (72 sites a
 * colour: one round of 128 work-items, the last 56 idle, and 5 rounds of 16,
 * the last half idle) with 32-bit words, nearest_integer (the last word
 * partly filled) and two runs.  group 0: the automatic work-group. */
static void resident_case(int dim, int edge, int word_bits, const char *resampling, int runs, int group)
{
    const char *modes[2] = {"on", "off"};
    char json[2][1024];
    for (int i = 0; i < 2; i++)
        snprintf(json[i], sizeof json[i],
                 "{\"model\": {\"type\": \"ea_ising\", \"dim\": %d, \"L\": %d}, \"algorithm\": {\"type\": "
                 "\"metropolis\", \"layout\": \"msc\", \"word_bits\": %d, \"resident\": \"%s\", "
                 "\"resident_group\": %d}, \"ensemble\": "
                 "{\"type\": \"population_annealing\", \"population\": 128, \"beta_end\": 1.5, \"steps\": 4, "
                 "\"sweeps_per_step\": 3, \"resampling\": \"%s\", \"runs\": %d}, \"run\": {\"seed\": 23}}",
                 dim, edge, word_bits, modes[i], i == 0 ? group : 0, resampling, runs);
    cJSON *result[2];
    char *observables[2];
    run_two(json, (const char *[]){"pa-ea-msc-resident-on", "pa-ea-msc-resident-off"}, result, observables);
    const cJSON *resident = cJSON_GetObjectItem(cJSON_GetObjectItem(result[0], "performance"), "resident");
    const char *hash[2] = {
        cJSON_GetObjectItem(cJSON_GetObjectItem(result[0], "checks"), "configuration_fnv1a")->valuestring,
        cJSON_GetObjectItem(cJSON_GetObjectItem(result[1], "checks"), "configuration_fnv1a")->valuestring};
    double per_launch = cJSON_GetNumberValue(cJSON_GetObjectItem(resident, "sweeps_per_launch"));
    printf("resident %dD L=%d W=%d %s runs %d: %g sweeps per launch, %g work-items of %g sites; hashes %s %s, "
           "observables %s\n", dim, edge, word_bits, resampling, runs, per_launch,
           cJSON_GetNumberValue(cJSON_GetObjectItem(resident, "work_group")),
           cJSON_GetNumberValue(cJSON_GetObjectItem(resident, "sites_per_item")), hash[0], hash[1],
           strcmp(observables[0], observables[1]) == 0 ? "identical" : "different");
    cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(resident, "used")), "the resident update was not used");
    cr_expect_eq(per_launch, 3.0, "sweeps per launch %g, not a step's 3", per_launch);
    if (group)
        cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(resident, "work_group")), group,
                     "work-group of %g, not the %d asked for",
                     cJSON_GetNumberValue(cJSON_GetObjectItem(resident, "work_group")), group);
    expect_same_run(result, observables, hash);
}

Test(population_msc, resident_equals_ordinary_launches, .timeout = 300)
{
    resident_case(3, 8, 64, "systematic", 1, 0);
    resident_case(3, 8, 64, "systematic", 1, 16);
    resident_case(2, 12, 32, "nearest_integer", 2, 0);
    resident_case(2, 12, 32, "nearest_integer", 2, 16);
}

/* lcg64_reseeded's generators belong to a word's sites (LCG_STREAMS of
 * them), not to work-items, so the resident update's work-group size
 * (algorithm.resident_group) leaves the run as it is: 3D L = 8 (256 sites
 * of a colour, 64-bit words: a work-item holds 16, 4 or 1 generators) and
 * 2D L = 12 (72 sites, 128 generators, 32-bit words, nearest_integer);
 * the final members' hash and every step's observables alike, and each run
 * used the group it asked for. */
static void resident_group_case(int dim, int edge, int word_bits, const char *resampling, const char *const groups[3])
{
    char *observables[3];
    const char *hash[3];
    cJSON *result[3];
    for (int g = 0; g < 3; g++) {
        char json[1024], label[64];
        snprintf(json, sizeof json,
                 "{\"model\": {\"type\": \"ea_ising\", \"dim\": %d, \"L\": %d}, \"algorithm\": {\"type\": "
                 "\"metropolis\", \"layout\": \"msc\", \"word_bits\": %d, \"resident\": \"on\", \"rng\": "
                 "\"lcg64_reseeded\", \"resident_group\": %s}, \"ensemble\": {\"type\": \"population_annealing\", "
                 "\"population\": 128, \"beta_end\": 1.5, \"steps\": 4, \"sweeps_per_step\": 3, "
                 "\"resampling\": \"%s\"}, \"run\": {\"seed\": 29}}",
                 dim, edge, word_bits, groups[g], resampling);
        snprintf(label, sizeof label, "pa-ea-lcg-group-%dd-%s", dim, groups[g]);
        result[g] = physics_run(json, label);
        observables[g] = cJSON_PrintUnformatted(cJSON_GetObjectItem(result[g], "observables"));
        hash[g] = cJSON_GetObjectItem(cJSON_GetObjectItem(result[g], "checks"), "configuration_fnv1a")->valuestring;
        const cJSON *resident = cJSON_GetObjectItem(cJSON_GetObjectItem(result[g], "performance"), "resident");
        cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(resident, "used")), "%s: the resident update was not used", label);
        cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(resident, "work_group")), atof(groups[g]),
                     "%s: work-group of %g", label, cJSON_GetNumberValue(cJSON_GetObjectItem(resident, "work_group")));
    }
    printf("lcg64_reseeded %dD L=%d W=%d %s: final members %s, %s, %s (work-groups of %s, %s, %s)\n", dim, edge,
           word_bits, resampling, hash[0], hash[1], hash[2], groups[0], groups[1], groups[2]);
    for (int g = 1; g < 3; g++) {
        cr_expect_str_eq(hash[0], hash[g], "final members differ between work-groups of %s and %s", groups[0], groups[g]);
        cr_expect_str_eq(observables[0], observables[g], "observables differ between work-groups of %s and %s",
                         groups[0], groups[g]);
    }
    for (int g = 0; g < 3; g++) {
        free(observables[g]);
        cJSON_Delete(result[g]);
    }
}

Test(population_msc, lcg64_reseeded_independent_of_resident_group, .timeout = 300)
{
    resident_group_case(3, 8, 64, "systematic", (const char *const[]){"16", "64", "256"});
    resident_group_case(2, 12, 32, "nearest_integer", (const char *const[]){"8", "32", "128"});
}

/* ---- Checkpoints and bad input ------------------------------------------- */

/* nearest_integer (the size fluctuates, so the last word is partly filled
 * and lanes past the members are zeroed by the gather), two runs, a
 * checkpoint every 4 sweeps: resumed from the last one, the observables
 * and the final configurations (every lane) equal the uninterrupted run's. */
Test(population_msc, checkpoint_resume_bit_identical, .timeout = 600)
{
    rerun_expect_resume_identical("pa-ea-msc-resume",
                                  "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4}, \"algorithm\": {\"type\": "
                                  "\"metropolis\", \"layout\": \"msc\", \"word_bits\": 32}, \"ensemble\": {\"type\": "
                                  "\"population_annealing\", \"population\": 96, \"beta_end\": 1.0, \"steps\": 5, "
                                  "\"sweeps_per_step\": 2, \"resampling\": \"nearest_integer\", \"runs\": 2}, "
                                  "\"run\": {\"seed\": 5, \"checkpoint_every\": 4}}");
}

/* The same with the resident update (a checkpoint between steps, so after
 * whole launches). */
Test(population_msc, resident_checkpoint_resume_bit_identical, .timeout = 600)
{
    rerun_expect_resume_identical("pa-ea-msc-resident-resume",
                                  "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4}, \"algorithm\": {\"type\": "
                                  "\"metropolis\", \"layout\": \"msc\", \"word_bits\": 32, \"resident\": \"on\"}, "
                                  "\"ensemble\": {\"type\": \"population_annealing\", \"population\": 96, \"beta_end\": 1.0, "
                                  "\"steps\": 5, \"sweeps_per_step\": 2, \"resampling\": \"nearest_integer\", \"runs\": 2}, "
                                  "\"run\": {\"seed\": 5, \"checkpoint_every\": 4}}");
}

/* ... and with algorithm.rng "lcg64_reseeded", whose generators are
 * seeded afresh in every launch (a step's sweeps). */
Test(population_msc, lcg64_reseeded_checkpoint_resume_bit_identical, .timeout = 600)
{
    rerun_expect_resume_identical("pa-ea-msc-lcg-resume",
                                  "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4}, "
                                  "\"algorithm\": {\"type\": \"metropolis\", \"layout\": \"msc\", \"word_bits\": 32, "
                                  "\"resident\": \"on\", \"rng\": \"lcg64_reseeded\"}, "
                                  "\"ensemble\": {\"type\": \"population_annealing\", \"population\": 96, "
                                  "\"beta_end\": 1.0, \"steps\": 5, \"sweeps_per_step\": 2, "
                                  "\"resampling\": \"nearest_integer\", \"runs\": 2}, "
                                  "\"run\": {\"seed\": 5, \"checkpoint_every\": 4}}");
}

#define EA_MSC_PA(model, algorithm, population)                                                                  \
    "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4" model "}, \"algorithm\": {\"type\": \"metropolis\", " \
    "\"layout\": \"msc\"" algorithm "}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": "      \
    population ", \"beta_end\": 1, \"steps\": 4}}"

Test(population_msc, bad_input_exits_2_naming_the_key)
{
    expect_input_error(EA_MSC_PA("", "", "100"), "pa-ea-msc-population", "ensemble.population");
    expect_input_error(EA_MSC_PA("", ", \"word_bits\": 32", "48"), "pa-ea-msc-population-32", "ensemble.population");
    expect_input_error(EA_MSC_PA("", "", "96"), "pa-ea-msc-population-hint", "word_bits to 32");
    expect_input_error(EA_MSC_PA("", ", \"resident_group\": 48", "64"), "pa-ea-msc-resident-group",
                       "algorithm.resident_group: 48 is not a power of two");
    expect_input_error(EA_MSC_PA("", ", \"resident_group\": 64", "64"), "pa-ea-msc-resident-group-sites",
                       "algorithm.resident_group: 64 exceeds the 32 sites of a colour");
    expect_input_error(EA_MSC_PA(", \"couplings\": \"gaussian\"", "", "64"), "pa-ea-msc-gaussian", "model.couplings");
    expect_input_error(EA_MSC_PA("", ", \"shared_randoms\": true", "64"), "pa-ea-msc-shared", "algorithm.shared_randoms");
    expect_input_error(EA_MSC_PA(", \"realizations\": 64", "", "64"), "pa-ea-msc-realizations", "model.realizations");
    expect_input_error(EA_MSC_PA("", ", \"update_group\": 48", "64"), "pa-ea-msc-group", "algorithm.update_group");
    /* lcg64_reseeded: msc population annealing on the resident update only. */
    expect_input_error(EA_MSC_PA("", ", \"rng\": \"lcg64_reseeded\", \"resident\": \"off\"", "64"), "pa-ea-msc-lcg-off",
                       "algorithm.rng: \"lcg64_reseeded\" draws in the resident msc update");
    expect_input_error("{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4}, \"algorithm\": {\"layout\": "
                       "\"naive\", \"rng\": \"lcg64_reseeded\"}, \"ensemble\": {\"type\": \"population_annealing\", "
                       "\"population\": 64, \"beta_end\": 1, \"steps\": 4}}",
                       "pa-ea-naive-lcg", "algorithm.rng: \"lcg64_reseeded\" is an option of population annealing");
    expect_input_error("{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4, \"realizations\": 64}, "
                       "\"algorithm\": {\"layout\": \"msc\", \"rng\": \"lcg64_reseeded\"}, "
                       "\"ensemble\": {\"beta\": 1}}",
                       "ea-msc-lcg-not-pa", "algorithm.rng: \"lcg64_reseeded\" is an option of population annealing");
    expect_input_error(EA_MSC_PA("", ", \"rng\": \"philox4x32_7\"", "64"), "pa-ea-msc-philox7", "algorithm.rng");
}

/* clmc-sequential: the Ising model by sequential single-site Metropolis on the host,
 * with any generator of algorithm.rng (docs/rng-study.md). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ising_exact.h"
#include "reference/ising_sequential.h"

static const char usage_text[] =
    "usage: clmc-sequential [--dim 2|3] --L N --beta B [--sweeps N] [--thermalization N]\n"
    "                       [--seed S] [--rng NAME] [--start ordered|random] [--json FILE]\n"
    "       clmc-sequential --exact --L N --beta B   (2D: the exact finite-lattice values only)\n"
    "Sequential (typewriter-order) single-site Metropolis of the Ising model on one host\n"
    "stream of generator NAME (default philox4x32_10; the names of algorithm.rng).\n"
    "Prints JSON: observables with jackknife errors and, in 2D, the exact energy and\n"
    "specific heat (Ferdinand-Fisher) with the deviations in standard errors.\n"
    "Defaults: --dim 2, --sweeps 100000, --thermalization 10000, --seed 42, --start ordered.\n"
    "Exit status: 0 ok, 2 bad usage, 1 other.\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "clmc-sequential: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage_text);
    return CLMC_ERR_INPUT;
}

static int parse_count(const char *flag, const char *text, uint64_t max, uint64_t *value)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-' || v > max) {
        fprintf(stderr, "clmc-sequential: %s: '%s' is not an integer in 0 .. %llu\n", flag, text,
                (unsigned long long)max);
        return CLMC_ERR_INPUT;
    }
    *value = v;
    return 0;
}

static void add_deviation(cJSON *root, cJSON *observables, const char *name, double exact)
{
    cJSON *entry = cJSON_GetObjectItem(observables, name);
    double mean = cJSON_GetObjectItem(entry, "mean")->valuedouble;
    double error = cJSON_GetObjectItem(entry, "error")->valuedouble;
    cJSON *deviation = cJSON_GetObjectItem(root, "deviation_in_errors");
    if (!deviation) deviation = cJSON_AddObjectToObject(root, "deviation_in_errors");
    cJSON_AddNumberToObject(deviation, name, error > 0 ? (mean - exact) / error : 0.0);
}

int main(int argc, char **argv)
{
    clmc_sequential_settings s = {.dim = 2, .L = 0, .beta = NAN, .sweeps = 100000, .thermalization = 10000,
                                  .seed = 42, .rng = CLMC_RNG_PHILOX4X32_10, .random_start = false};
    const char *json_path = NULL;
    bool exact_only = false;
    uint64_t value;
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        if (strcmp(flag, "--help") == 0 || strcmp(flag, "-h") == 0) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (strcmp(flag, "--exact") == 0) {
            exact_only = true;
            continue;
        }
        if (i + 1 >= argc) return usage_error("%s: missing value", flag);
        const char *arg = argv[++i];
        if (strcmp(flag, "--dim") == 0) {
            if (strcmp(arg, "2") != 0 && strcmp(arg, "3") != 0) return usage_error("--dim: '%s' is not 2 or 3", arg);
            s.dim = arg[0] - '0';
        } else if (strcmp(flag, "--L") == 0) {
            if (parse_count(flag, arg, 4096, &value)) return CLMC_ERR_INPUT;
            if (value < 2) return usage_error("--L: '%s' is below 2", arg);
            s.L = (int)value;
        } else if (strcmp(flag, "--beta") == 0) {
            char *end;
            s.beta = strtod(arg, &end);
            if (end == arg || *end || !(s.beta >= 0) || !isfinite(s.beta))
                return usage_error("--beta: '%s' is not a finite number >= 0", arg);
        } else if (strcmp(flag, "--sweeps") == 0) {
            if (parse_count(flag, arg, UINT64_MAX / 2, &s.sweeps)) return CLMC_ERR_INPUT;
            if (s.sweeps < 4) return usage_error("--sweeps: '%s' is below 4 (the jackknife needs bins)", arg);
        } else if (strcmp(flag, "--thermalization") == 0) {
            if (parse_count(flag, arg, UINT64_MAX / 2, &s.thermalization)) return CLMC_ERR_INPUT;
        } else if (strcmp(flag, "--seed") == 0) {
            if (parse_count(flag, arg, (1ull << 53) - 1, &s.seed)) return CLMC_ERR_INPUT;
        } else if (strcmp(flag, "--rng") == 0) {
            if (clmc_rng_kind_from_name(arg, "--rng", &s.rng) != CLMC_OK) {
                fprintf(stderr, "clmc-sequential: %s\n", clmc_error_message());
                return CLMC_ERR_INPUT;
            }
        } else if (strcmp(flag, "--start") == 0) {
            if (strcmp(arg, "ordered") != 0 && strcmp(arg, "random") != 0)
                return usage_error("--start: '%s' is not ordered or random", arg);
            s.random_start = arg[0] == 'r';
        } else if (strcmp(flag, "--json") == 0) {
            json_path = arg;
        } else {
            return usage_error("unknown option '%s'", flag);
        }
    }
    if (s.L == 0) return usage_error("%s", "--L is required");
    if (isnan(s.beta)) return usage_error("%s", "--beta is required");
    if (exact_only && s.dim != 2) return usage_error("%s", "--exact: exact values exist for --dim 2 only");

    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "clmc-sequential");
    cJSON_AddNumberToObject(root, "format_version", 1);
    cJSON *model = cJSON_AddObjectToObject(root, "model");
    cJSON_AddStringToObject(model, "type", "ising");
    cJSON_AddNumberToObject(model, "dim", s.dim);
    cJSON_AddNumberToObject(model, "L", s.L);
    cJSON_AddNumberToObject(root, "beta", s.beta);
    int status = CLMC_OK;
    cJSON *observables = NULL;
    if (!exact_only) {
        cJSON *run = cJSON_AddObjectToObject(root, "run");
        cJSON_AddStringToObject(run, "update", "sequential");
        cJSON_AddStringToObject(run, "rng", clmc_rng_names[s.rng]);
        cJSON_AddNumberToObject(run, "seed", (double)s.seed);
        cJSON_AddNumberToObject(run, "thermalization", (double)s.thermalization);
        cJSON_AddNumberToObject(run, "sweeps", (double)s.sweeps);
        cJSON_AddStringToObject(run, "start", s.random_start ? "random" : "ordered");
        observables = cJSON_AddObjectToObject(root, "observables");
        double seconds = 0;
        status = clmc_ising_sequential_run(&s, observables, &seconds);
        double updates = (double)(s.thermalization + s.sweeps) * pow(s.L, s.dim);
        cJSON *performance = cJSON_AddObjectToObject(root, "performance");
        cJSON_AddNumberToObject(performance, "seconds", seconds);
        cJSON_AddNumberToObject(performance, "ns_per_update", updates > 0 ? 1e9 * seconds / updates : 0);
    }
    if (status == CLMC_OK && s.dim == 2) {
        double energy, heat;
        ising2d_exact(s.L, s.beta, &energy, &heat);
        cJSON *exact = cJSON_AddObjectToObject(root, "exact");
        cJSON_AddNumberToObject(exact, "energy", energy);
        cJSON_AddNumberToObject(exact, "specific_heat", heat);
        if (observables) {
            add_deviation(root, observables, "energy", energy);
            add_deviation(root, observables, "specific_heat", heat);
        }
    }
    if (status != CLMC_OK) {
        fprintf(stderr, "clmc-sequential: error: %s\n", clmc_error_message());
    } else {
        char *text = cJSON_Print(root);
        FILE *out = json_path ? fopen(json_path, "w") : stdout;
        if (!out || !text || fprintf(out, "%s\n", text) < 0) {
            fprintf(stderr, "clmc-sequential: cannot write %s\n", json_path ? json_path : "stdout");
            status = CLMC_ERR_OTHER;
        }
        if (json_path && out && fclose(out) != 0) status = CLMC_ERR_OTHER;
        free(text);
    }
    cJSON_Delete(root);
    return status;
}

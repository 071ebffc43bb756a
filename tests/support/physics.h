/* Running a preset in-process for physics tests and comparing with a reference. */
#ifndef CLMC_TEST_PHYSICS_H
#define CLMC_TEST_PHYSICS_H

#include <cjson/cJSON.h>

/* Parses the preset text (output.dir is set to a fresh scratch directory),
 * runs it on the default device and returns the parsed result.json. */
cJSON *physics_run(const char *preset_json, const char *label);
/* The same, keeping the output directory (*dir, caller frees). */
cJSON *physics_run_in(const char *preset_json, const char *label, char **dir);
/* checks.NAME of a parsed result (asserted to be a number). */
double physics_check(const cJSON *result, const char *name);

/* An observable of one entry of observables.temperatures (asserted present):
 * the object, its mean, and its error (asserted positive). */
const cJSON *physics_item(const cJSON *entry, const char *name);
double physics_mean(const cJSON *entry, const char *name);
double physics_error(const cJSON *entry, const char *name);

/* Prints "what: measured +- error vs reference (z = ...)" and returns |z|. */
double physics_compare(const char *what, double measured, double error, double reference);

/* observables.tempering of a result: an acceptance in (0, 1] per pair of
 * neighbouring betas, and the final map a permutation of each chain's
 * configurations (chains x n_betas entries). */
void physics_check_tempering_report(const cJSON *result, int chains, int n_betas);

/* A preset that must be refused: clmc_preset_parse gives an input error
 * whose message contains `needle`, and `clmc run` exits with 2 without
 * creating its output directory. */
void expect_input_error(const char *preset_json, const char *label, const char *needle);

#endif

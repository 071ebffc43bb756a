/* Re-run helpers shared by the tests of independent systems, stateful
 * generators and random-site updates: a run's output file, the rows of one
 * system of a series, and the check that a run resumed from its last
 * checkpoint ends bit for bit like the uninterrupted one. */
#ifndef CLMC_TEST_RERUN_H
#define CLMC_TEST_RERUN_H

/* Runs `clmc run PRESET --quiet --out DIR/NAME OVERRIDES` (asserting exit 0)
 * and returns the text of DIR/NAME/FILE (asserted to exist; caller frees). */
char *rerun_file(const char *dir, const char *preset, const char *name, const char *overrides, const char *file);
/* Writes `json` as DIR/preset.json into a fresh scratch directory DIR named
 * after `label`; returns DIR (caller frees). */
char *rerun_preset_dir(const char *label, const char *json);

/* The rows of a series (first line the header, then sweep,system,...) whose
 * system column is `system`, each as "sweep,values\n" with the `skip`
 * columns after the sweep dropped (system, temperature, beta: 3; an athermal
 * model's system alone: 1).  *n (if not NULL) receives the row count;
 * caller frees. */
char *rerun_rows_of_system(const char *series, int system, int skip, int *n);

/* Runs `json` (with run.checkpoint_every below its last sweep) into
 * DIR/full, copies it to DIR/resumed without result.json and series.csv,
 * resumes that, and expects the same series.csv, `observables` and `checks`
 * (final configurations) bit for bit.  `label` names the scratch directory
 * and the printed line. */
void rerun_expect_resume_identical(const char *label, const char *json);

#endif

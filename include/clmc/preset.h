/* Presets: strict, schema-driven parsing of JSON run descriptions (docs/interface.md). */
#ifndef CLMC_PRESET_H
#define CLMC_PRESET_H

#include <stdbool.h>
#include <stddef.h>

#include "clmc/status.h"

typedef enum {
    CLMC_FIELD_INT,
    CLMC_FIELD_NUMBER,
    CLMC_FIELD_STRING,
    CLMC_FIELD_BOOL,
    CLMC_FIELD_NUMBER_LIST
} clmc_field_kind;

/* One key of a preset section.  Tables end with an entry whose name is NULL. */
typedef struct clmc_field {
    const char *name;
    clmc_field_kind kind;
    double min, max;             /* inclusive range (ints, numbers, list items) */
    bool min_open;               /* true: the lower bound itself is excluded */
    const char *const *choices;  /* strings: NULL-terminated allowed values */
    const char *default_json;    /* JSON text of the default; NULL = required */
    const char *help;            /* one line: what it means, for docs/errors */
} clmc_field;

typedef struct clmc_preset clmc_preset;

/* Parses and validates; `overrides` are "PATH=VALUE" strings applied before
 * validation (VALUE is JSON if it parses as JSON, else a string).  On failure
 * returns CLMC_ERR_INPUT with a message naming file:line:column (syntax) or the
 * JSON path (schema). */
clmc_status clmc_preset_load(const char *path, const char *const *overrides,
                             size_t n_overrides, clmc_preset **out);
clmc_status clmc_preset_parse(const char *text, size_t length, const char *source_name,
                              const char *const *overrides, size_t n_overrides,
                              clmc_preset **out);
void clmc_preset_free(clmc_preset *preset);

/* Resolved preset (defaults filled) as indented JSON; caller frees with free(). */
char *clmc_preset_to_json(const clmc_preset *preset);
/* The resolved tree itself (a cJSON *), for embedding into results. */
const void *clmc_preset_tree(const clmc_preset *preset);

/* Typed access by dotted path ("model.L").  Paths must exist in the resolved
 * preset (the schema guarantees the ones it declares). */
long long clmc_preset_int(const clmc_preset *preset, const char *path);
double clmc_preset_number(const clmc_preset *preset, const char *path);
const char *clmc_preset_string(const clmc_preset *preset, const char *path);
bool clmc_preset_bool(const clmc_preset *preset, const char *path);
bool clmc_preset_has(const clmc_preset *preset, const char *path);
/* The ensemble's inverse temperatures: ensemble.beta, or the tempering list
 * ensemble.betas (increasing).  Writes at most `capacity`; returns the count. */
size_t clmc_preset_betas(const clmc_preset *preset, double *betas, size_t capacity);
/* Engine-side resolution of automatic values (e.g. a per-device tile edge). */
void clmc_preset_set_int(clmc_preset *preset, const char *path, long long value);

#endif

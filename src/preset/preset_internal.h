/* Preset internals shared by preset.c (schema, public API) and preset_input.c (text, overrides). */
#ifndef CLMC_PRESET_INTERNAL_H
#define CLMC_PRESET_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "clmc/status.h"

/* Longest excerpt of input text that a message quotes. */
#define CLMC_PRESET_EXCERPT_BYTES 24

static inline clmc_status out_of_memory(void) { return clmc_fail(CLMC_ERR_OTHER, "preset: out of memory"); }

/* Copies at most CLMC_PRESET_EXCERPT_BYTES of `text`, control characters shown
 * as '?', never cutting a UTF-8 sequence; stops early at a newline if asked. */
void clmc_preset_excerpt(const char *text, size_t length, bool stop_at_newline, char *buf, size_t size);

/* A cJSON type bit (above cJSON's own) on numbers written with a fraction
 * or an exponent, set by clmc_preset_mark_number_text. */
#define CLMC_JSON_NOT_INTEGER_TEXT (1 << 12)
void clmc_preset_mark_number_text(cJSON *root, const char *text, size_t length);

/* The whole file as text (not NUL-terminated); caller frees `*text`. */
clmc_status clmc_preset_read_file(const char *path, char **text, size_t *length);
/* One JSON value, any type; syntax errors name `source`:line:column. */
clmc_status clmc_preset_parse_json(const char *text, size_t length, const char *source, cJSON **out);
/* "PATH=VALUE" strings stored into `root`, an object, in order. */
clmc_status clmc_preset_apply_overrides(cJSON *root, const char *const *overrides, size_t n_overrides);
/* Stores `value` (always consumed) at the dotted path, creating missing
 * objects on the way; for callers that need no error report. */
void clmc_preset_set_path(cJSON *root, const char *path, cJSON *value);

#endif

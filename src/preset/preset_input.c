/* Preset input: reading text and files, JSON syntax errors as file:line:column, and --set overrides. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "preset/preset_internal.h"

#define PRESET_MAX_BYTES ((size_t)16 << 20)
#define EXCERPT_BEFORE 10

/* ---- Files --------------------------------------------------------------- */

/* Reads at most PRESET_MAX_BYTES + 1 bytes, so any file kind (pipes too) works. */
clmc_status clmc_preset_read_file(const char *path, char **text, size_t *length)
{
    FILE *file = fopen(path, "rb");
    if (!file) return clmc_fail(CLMC_ERR_INPUT, "cannot read preset '%s': %s", path, strerror(errno));
    size_t capacity = 1 << 16, used = 0;
    char *buf = malloc(capacity);
    while (buf && used <= PRESET_MAX_BYTES) {
        if (used == capacity) {
            capacity *= 2;
            char *grown = realloc(buf, capacity);
            if (!grown) free(buf);
            buf = grown;
            if (!buf) break;
        }
        size_t got = fread(buf + used, 1, capacity - used, file);
        used += got;
        if (got == 0) break;
    }
    int read_errno = ferror(file) ? errno : 0;
    fclose(file);
    clmc_status status = CLMC_OK;
    if (!buf)
        status = out_of_memory();
    else if (read_errno)
        status = clmc_fail(CLMC_ERR_INPUT, "cannot read preset '%s': %s", path, strerror(read_errno));
    else if (used > PRESET_MAX_BYTES)
        status = clmc_fail(CLMC_ERR_INPUT, "preset '%s' is larger than 16 MiB", path);
    if (status != CLMC_OK) {
        free(buf);
        return status;
    }
    *text = buf;
    *length = used;
    return CLMC_OK;
}

/* ---- JSON text ----------------------------------------------------------- */

static bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static bool only_whitespace(const char *text, size_t length)
{
    for (size_t i = 0; i < length; i++)
        if (!is_json_space(text[i])) return false;
    return true;
}

void clmc_preset_excerpt(const char *text, size_t length, bool stop_at_newline, char *buf, size_t size)
{
    size_t n = 0;
    while (n < length && n < CLMC_PRESET_EXCERPT_BYTES && n + 4 < size &&
           !(stop_at_newline && text[n] == '\n'))
        n++;
    if (n < length && n == CLMC_PRESET_EXCERPT_BYTES)
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80) n--;
    for (size_t i = 0; i < n; i++) buf[i] = iscntrl((unsigned char)text[i]) ? '?' : text[i];
    bool cut = n < length && !(stop_at_newline && text[n] == '\n');
    snprintf(buf + n, size - n, "%s", cut ? "..." : "");
}

/* cJSON sometimes reports the byte after the culprit, so whitespace there
 * means the culprit is the last character before it; the excerpt shows a
 * little of the line before the position for the same reason. */
static clmc_status syntax_error(const char *source, const char *text, size_t length, const char *at,
                                const char *what)
{
    size_t offset = at && at >= text && (size_t)(at - text) < length ? (size_t)(at - text) : length - 1;
    while (offset > 0 && is_json_space(text[offset])) offset--;
    size_t line = 1, line_start = 0;
    for (size_t i = 0; i < offset; i++) {
        if (text[i] != '\n') continue;
        line++;
        line_start = i + 1;
    }
    size_t start = offset - line_start > EXCERPT_BEFORE ? offset - EXCERPT_BEFORE : line_start;
    if (start > line_start) /* begin at a word boundary */
        while (start < offset && !is_json_space(text[start - 1])) start++;
    while (start < offset && is_json_space(text[start])) start++;
    char near[CLMC_PRESET_EXCERPT_BYTES + 8];
    clmc_preset_excerpt(text + start, length - start, true, near, sizeof near);
    size_t column = offset - line_start + 1;
    return clmc_fail(CLMC_ERR_INPUT, "%s:%zu:%zu: %s near '%s'", source, line, column, what, near);
}

/* Depth of [ and { nesting just before `offset`, strings skipped. */
static size_t nesting_at(const char *text, size_t offset)
{
    size_t depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < offset; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\') i++;
            else if (c == '"') in_string = false;
        } else if (c == '"') in_string = true;
        else if (c == '[' || c == '{') depth++;
        else if ((c == ']' || c == '}') && depth) depth--;
    }
    return depth;
}

/* Every number node of `node`, in document order, into `nodes` (or counted). */
static size_t collect_numbers(cJSON *node, cJSON **nodes, size_t n)
{
    for (; node; node = node->next) {
        if (cJSON_IsNumber(node)) {
            if (nodes) nodes[n] = node;
            n++;
        }
        n = collect_numbers(node->child, nodes, n);
    }
    return n;
}

/* Numbers written with a fraction or an exponent ("1e3", "16.0") get
 * CLMC_JSON_NOT_INTEGER_TEXT, so integer keys can refuse them: cJSON keeps
 * only the double.  The k-th number token of the text is the k-th number
 * node in document order. */
void clmc_preset_mark_number_text(cJSON *root, const char *text, size_t length)
{
    size_t count = collect_numbers(root, NULL, 0), k = 0;
    cJSON **nodes = count ? malloc(count * sizeof *nodes) : NULL;
    if (!nodes) return;
    collect_numbers(root, nodes, 0);
    bool in_string = false;
    for (size_t i = 0; i < length && k < count; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\') i++;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        if (c != '-' && !(c >= '0' && c <= '9')) continue;
        bool integral = true;
        for (; i < length && strchr("+-.0123456789eE", text[i]) && text[i]; i++)
            if (text[i] == '.' || text[i] == 'e' || text[i] == 'E') integral = false;
        if (!integral) nodes[k]->type |= CLMC_JSON_NOT_INTEGER_TEXT;
        k++;
        i--;
    }
    free(nodes);
}

/* Parses with an explicit end pointer so trailing text is an error too. */
clmc_status clmc_preset_parse_json(const char *text, size_t length, const char *source, cJSON **out)
{
    if (!text && length) return clmc_fail(CLMC_ERR_INPUT, "%s: no preset text", source);
    if (length > PRESET_MAX_BYTES)
        return clmc_fail(CLMC_ERR_INPUT, "%s: preset is larger than 16 MiB", source);
    if (only_whitespace(text, length)) return clmc_fail(CLMC_ERR_INPUT, "%s: preset is empty", source);
    char *copy = malloc(length + 1); /* cJSON must never read past the text */
    if (!copy) return out_of_memory();
    memcpy(copy, text, length);
    copy[length] = '\0';
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(copy, length, &end, false);
    clmc_status status = CLMC_OK;
    size_t error_at = end && end >= copy ? (size_t)(end - copy) : 0;
    if (!root && error_at < length && (copy[error_at] == '[' || copy[error_at] == '{') &&
        nesting_at(copy, error_at) >= CJSON_NESTING_LIMIT) {
        char what[96];
        snprintf(what, sizeof what, "invalid JSON: nested deeper than the limit of %d arrays and objects",
                 CJSON_NESTING_LIMIT);
        status = syntax_error(source, copy, length, end, what);
    } else if (!root) {
        status = syntax_error(source, copy, length, end, "invalid JSON");
    } else if (!only_whitespace(end, length - (size_t)(end - copy))) {
        while (is_json_space(*end)) end++;
        status = syntax_error(source, copy, length, end, "invalid JSON: text after the end of the preset");
    }
    if (status == CLMC_OK) clmc_preset_mark_number_text(root, copy, length);
    free(copy);
    if (status != CLMC_OK) {
        cJSON_Delete(root);
        return status;
    }
    *out = root;
    return CLMC_OK;
}

/* ---- Paths and overrides --------------------------------------------------- */

typedef enum { SET_OK, SET_EMPTY_KEY, SET_NOT_OBJECT, SET_NO_MEMORY } set_result;

static set_result put_value(cJSON *object, const char *key, cJSON *value)
{
    bool done = cJSON_GetObjectItemCaseSensitive(object, key)
                    ? cJSON_ReplaceItemInObjectCaseSensitive(object, key, value)
                    : cJSON_AddItemToObject(object, key, value);
    if (done) return SET_OK;
    cJSON_Delete(value);
    return SET_NO_MEMORY;
}

/* Stores `value` (always consumed) at the dotted path, creating missing
 * objects on the way.  On SET_NOT_OBJECT, `*prefix` is the length of the
 * path part that names a non-object. */
static set_result set_path(cJSON *root, const char *path, size_t path_length, cJSON *value, size_t *prefix)
{
    char *keys = malloc(path_length + 1);
    if (!keys) {
        cJSON_Delete(value);
        return SET_NO_MEMORY;
    }
    memcpy(keys, path, path_length);
    keys[path_length] = '\0';
    set_result result = SET_OK;
    cJSON *object = root;
    for (char *key = keys;;) {
        char *dot = strchr(key, '.');
        if (dot) *dot = '\0';
        if (key[0] == '\0') {
            result = SET_EMPTY_KEY;
            break;
        }
        if (!dot) {
            result = put_value(object, key, value);
            value = NULL;
            break;
        }
        cJSON *child = cJSON_GetObjectItemCaseSensitive(object, key);
        if (!child && !(child = cJSON_AddObjectToObject(object, key))) {
            result = SET_NO_MEMORY;
            break;
        }
        if (!cJSON_IsObject(child)) {
            result = SET_NOT_OBJECT;
            *prefix = (size_t)(dot - keys);
            break;
        }
        object = child;
        key = dot + 1;
    }
    free(keys);
    cJSON_Delete(value);
    return result;
}

/* JSON when the whole text is one JSON value, else the text as a string. */
static cJSON *parse_override_value(const char *text)
{
    size_t length = strlen(text);
    const char *end = NULL;
    cJSON *json = cJSON_ParseWithLengthOpts(text, length, &end, false);
    if (json && only_whitespace(end, length - (size_t)(end - text))) {
        clmc_preset_mark_number_text(json, text, length);
        return json;
    }
    cJSON_Delete(json);
    return cJSON_CreateString(text);
}

static clmc_status apply_override(cJSON *root, const char *override)
{
    const char *equals = strchr(override, '=');
    if (!equals) return clmc_fail(CLMC_ERR_INPUT, "invalid override '%s': expected PATH=VALUE", override);
    if (equals == override) return clmc_fail(CLMC_ERR_INPUT, "invalid override '%s': empty path", override);
    cJSON *value = parse_override_value(equals + 1);
    if (!value) return out_of_memory();
    size_t prefix = 0;
    switch (set_path(root, override, (size_t)(equals - override), value, &prefix)) {
    case SET_OK: return CLMC_OK;
    case SET_EMPTY_KEY:
        return clmc_fail(CLMC_ERR_INPUT, "invalid override '%s': empty key in path", override);
    case SET_NOT_OBJECT:
        return clmc_fail(CLMC_ERR_INPUT, "invalid override '%s': '%.*s' is not an object", override,
                         (int)prefix, override);
    case SET_NO_MEMORY: break;
    }
    return out_of_memory();
}

clmc_status clmc_preset_apply_overrides(cJSON *root, const char *const *overrides, size_t n_overrides)
{
    if (n_overrides && !overrides) return clmc_fail(CLMC_ERR_INPUT, "overrides: no list given");
    for (size_t i = 0; i < n_overrides; i++) {
        if (!overrides[i]) return clmc_fail(CLMC_ERR_INPUT, "override %zu is missing", i + 1);
        CLMC_TRY(apply_override(root, overrides[i]));
    }
    return CLMC_OK;
}

void clmc_preset_set_path(cJSON *root, const char *path, cJSON *value)
{
    size_t prefix = 0;
    set_path(root, path, strlen(path), value, &prefix);
}

/* The checkpoint file's bytes: little-endian fields in tagged sections,
 * verified whole (length, magic, format version, checksum) before use. */
#include "engine/checkpoint.h"

#include <stdlib.h>
#include <string.h>

#include "output/state_blob.h"

#define MAGIC "CLMCCKPT"
#define MAGIC_BYTES 8
#define HEADER_BYTES (MAGIC_BYTES + 4)
#define CHECKSUM_BYTES 8
#define SECTION_HEAD_BYTES 12 /* tag (4 characters) + length (u64) */

/* FNV-1a 64: every change of a single byte changes the sum (each step is a
 * bijection of the state). */
static uint64_t fnv1a64(const unsigned char *bytes, size_t length)
{
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < length; i++) hash = (hash ^ bytes[i]) * 0x100000001b3ULL;
    return hash;
}

/* ---- Writing ------------------------------------------------------------- */

typedef clmc_blob_writer writer; /* state_blob.h: the first failure sticks */

static void put_bytes(writer *w, const void *bytes, size_t n) { clmc_blob_put_bytes(w, bytes, n); }
static void put_u64(writer *w, uint64_t x) { clmc_blob_put_u64(w, x); }
static void put_u32(writer *w, uint32_t x) { clmc_blob_put_u32(w, x); }
static void put_double(writer *w, double x) { clmc_blob_put_doubles(w, &x, 1); }

static void put_section_head(writer *w, const char *tag, uint64_t length)
{
    put_bytes(w, tag, 4);
    put_u64(w, length);
}

static void put_string_section(writer *w, const char *tag, const char *text)
{
    size_t n = strlen(text);
    put_section_head(w, tag, n);
    put_bytes(w, text, n);
}

static void put_tempering(writer *w, const clmc_checkpoint *c)
{
    put_section_head(w, "TEMP", 8 + 8 * (uint64_t)c->n_configs + 16 * (uint64_t)c->n_temperatures + 16);
    put_u32(w, c->n_configs);
    put_u32(w, c->n_temperatures);
    for (uint32_t i = 0; i < c->n_configs; i++) put_u32(w, c->config_at[i]);
    for (uint32_t i = 0; i < c->n_configs; i++) put_u32(w, (uint32_t)c->heading[i]);
    for (uint32_t t = 0; t < c->n_temperatures; t++) put_u64(w, c->accepted[t]);
    for (uint32_t t = 0; t < c->n_temperatures; t++) put_u64(w, c->attempted[t]);
    put_u64(w, c->round_trips);
    put_u64(w, c->exchanges);
}

static void put_series(writer *w, const clmc_checkpoint *c)
{
    put_section_head(w, "SERI", 16 + 8 * c->n_rows * (1 + c->row_values));
    put_u64(w, c->n_rows);
    put_u64(w, c->row_values);
    for (uint64_t r = 0; r < c->n_rows; r++) put_u64(w, c->sweeps[r]);
    for (uint64_t k = 0; k < c->n_rows * c->row_values; k++) put_double(w, c->rows[k]);
}

clmc_status clmc_checkpoint_encode(const clmc_checkpoint *c, unsigned char **bytes, size_t *length)
{
    writer w = {0};
    put_bytes(&w, MAGIC, MAGIC_BYTES);
    put_u32(&w, CLMC_CHECKPOINT_FORMAT);
    put_string_section(&w, "VERS", c->engine_version);
    put_string_section(&w, "DEVI", c->device_name);
    put_string_section(&w, "PRST", c->preset_json);
    put_section_head(&w, "RUN ", 8);
    put_u64(&w, c->next_sweep);
    put_tempering(&w, c);
    put_series(&w, c);
    put_section_head(&w, "MODL", c->model_bytes);
    put_bytes(&w, c->model_blob, c->model_bytes);
    if (c->ensemble_bytes) {
        put_section_head(&w, "ENSM", c->ensemble_bytes);
        put_bytes(&w, c->ensemble_blob, c->ensemble_bytes);
    }
    put_section_head(&w, "GENR", 8);
    put_u64(&w, c->generation);
    if (w.status == CLMC_OK) put_u64(&w, fnv1a64(w.bytes, w.used));
    return clmc_blob_finish(&w, bytes, length);
}

/* ---- Reading ------------------------------------------------------------- */

typedef struct {
    const unsigned char *at;
    uint64_t left;
} reader;

static uint64_t get_u64(reader *r)
{
    uint64_t x = clmc_le_u64(r->at);
    r->at += 8;
    r->left -= 8;
    return x;
}

static uint32_t get_u32(reader *r)
{
    uint32_t x = clmc_le_u32(r->at);
    r->at += 4;
    r->left -= 4;
    return x;
}

static clmc_status corrupt(const char *what)
{
    return clmc_fail(CLMC_ERR_INPUT, "checkpoint: %s", what);
}

static clmc_status get_string(reader section, char **out)
{
    if (memchr(section.at, '\0', section.left)) return corrupt("a text section holds a NUL byte");
    char *text = malloc(section.left + 1);
    if (!text) return clmc_fail(CLMC_ERR_OTHER, "checkpoint: out of host memory");
    memcpy(text, section.at, section.left);
    text[section.left] = '\0';
    *out = text;
    return CLMC_OK;
}

static clmc_status get_tempering(reader r, clmc_checkpoint *c)
{
    if (r.left < 8) return corrupt("tempering section too short");
    c->n_configs = get_u32(&r);
    c->n_temperatures = get_u32(&r);
    if (c->n_temperatures == 0 || c->n_configs == 0 || c->n_configs % c->n_temperatures != 0)
        return corrupt("tempering section: inconsistent counts");
    if (r.left != 8 * (uint64_t)c->n_configs + 16 * (uint64_t)c->n_temperatures + 16)
        return corrupt("tempering section has the wrong length");
    c->config_at = malloc(c->n_configs * sizeof *c->config_at);
    c->heading = malloc(c->n_configs * sizeof *c->heading);
    c->accepted = malloc(c->n_temperatures * sizeof *c->accepted);
    c->attempted = malloc(c->n_temperatures * sizeof *c->attempted);
    if (!c->config_at || !c->heading || !c->accepted || !c->attempted)
        return clmc_fail(CLMC_ERR_OTHER, "checkpoint: out of host memory");
    for (uint32_t i = 0; i < c->n_configs; i++)
        if ((c->config_at[i] = get_u32(&r)) >= c->n_configs) return corrupt("tempering map out of range");
    for (uint32_t i = 0; i < c->n_configs; i++) {
        c->heading[i] = (int32_t)get_u32(&r);
        if (c->heading[i] < -1 || c->heading[i] > 1) return corrupt("tempering heading out of range");
    }
    for (uint32_t t = 0; t < c->n_temperatures; t++) c->accepted[t] = get_u64(&r);
    for (uint32_t t = 0; t < c->n_temperatures; t++) c->attempted[t] = get_u64(&r);
    c->round_trips = get_u64(&r);
    c->exchanges = get_u64(&r);
    return CLMC_OK;
}

static clmc_status get_series(reader r, clmc_checkpoint *c)
{
    if (r.left < 16) return corrupt("series section too short");
    c->n_rows = get_u64(&r);
    c->row_values = get_u64(&r);
    /* Both counts are bounded by the section length before multiplying. */
    uint64_t words = r.left / 8;
    if (r.left % 8 != 0 || c->row_values == 0 ||
        (c->n_rows && (c->row_values >= words || 1 + c->row_values > words / c->n_rows)) ||
        c->n_rows * (1 + c->row_values) != words)
        return corrupt("series section has the wrong length");
    c->sweeps = malloc((c->n_rows ? c->n_rows : 1) * sizeof *c->sweeps);
    c->rows = malloc((c->n_rows ? c->n_rows * c->row_values : 1) * sizeof *c->rows);
    if (!c->sweeps || !c->rows) return clmc_fail(CLMC_ERR_OTHER, "checkpoint: out of host memory");
    for (uint64_t k = 0; k < c->n_rows; k++) c->sweeps[k] = get_u64(&r);
    for (uint64_t k = 0; k < c->n_rows * c->row_values; k++) {
        uint64_t bits = get_u64(&r);
        memcpy(&c->rows[k], &bits, sizeof bits);
    }
    return CLMC_OK;
}

static clmc_status get_model(reader r, clmc_checkpoint *c)
{
    c->model_bytes = r.left;
    c->model_blob = malloc(r.left ? r.left : 1);
    if (!c->model_blob) return clmc_fail(CLMC_ERR_OTHER, "checkpoint: out of host memory");
    if (r.left) memcpy(c->model_blob, r.at, r.left);
    return CLMC_OK;
}

static const char *const section_tags[] = {"VERS", "DEVI", "PRST", "RUN ", "TEMP", "SERI", "MODL"};
#define N_SECTIONS 7

static clmc_status get_section(int index, reader section, clmc_checkpoint *c)
{
    switch (index) {
    case 0: return get_string(section, &c->engine_version);
    case 1: return get_string(section, &c->device_name);
    case 2: return get_string(section, &c->preset_json);
    case 3:
        if (section.left != 8) return corrupt("run section has the wrong length");
        c->next_sweep = get_u64(&section);
        return CLMC_OK;
    case 4: return get_tempering(section, c);
    case 5: return get_series(section, c);
    default: return get_model(section, c);
    }
}

/* Every section once, in the order written. */
static clmc_status get_sections(reader r, clmc_checkpoint *c)
{
    for (int index = 0; index < N_SECTIONS; index++) {
        if (r.left < SECTION_HEAD_BYTES) return corrupt("a section is missing");
        if (memcmp(r.at, section_tags[index], 4) != 0) return corrupt("unexpected section tag");
        r.at += 4;
        r.left -= 4;
        uint64_t length = get_u64(&r);
        if (length > r.left) return corrupt("a section runs past the end of the file");
        CLMC_TRY(get_section(index, (reader){r.at, length}, c));
        r.at += length;
        r.left -= length;
    }
    if (r.left >= SECTION_HEAD_BYTES && memcmp(r.at, "ENSM", 4) == 0) { /* optional: an ensemble kind's state */
        r.at += 4;
        r.left -= 4;
        uint64_t length = get_u64(&r);
        if (length == 0 || length > r.left) return corrupt("the ensemble section runs past the end of the file");
        c->ensemble_blob = malloc(length);
        if (!c->ensemble_blob) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
        memcpy(c->ensemble_blob, r.at, length);
        c->ensemble_bytes = length;
        r.at += length;
        r.left -= length;
    }
    if (r.left >= SECTION_HEAD_BYTES && memcmp(r.at, "GENR", 4) == 0) { /* optional (older files: generation 0) */
        r.at += 4;
        r.left -= 4;
        if (get_u64(&r) != 8 || r.left < 8) return corrupt("the generation section has the wrong length");
        c->generation = get_u64(&r);
    }
    return r.left == 0 ? CLMC_OK : corrupt("bytes after the last section");
}

clmc_status clmc_checkpoint_decode(const unsigned char *bytes, size_t length, clmc_checkpoint *c)
{
    memset(c, 0, sizeof *c);
    if (length < HEADER_BYTES + CHECKSUM_BYTES || memcmp(bytes, MAGIC, MAGIC_BYTES) != 0)
        return corrupt("not a clmc checkpoint (too short or no CLMCCKPT magic)");
    reader tail = {bytes + length - CHECKSUM_BYTES, CHECKSUM_BYTES};
    if (get_u64(&tail) != fnv1a64(bytes, length - CHECKSUM_BYTES))
        return corrupt("checksum mismatch: the file is truncated or corrupted");
    reader r = {bytes + MAGIC_BYTES, length - MAGIC_BYTES - CHECKSUM_BYTES};
    uint32_t format = get_u32(&r);
    if (format != CLMC_CHECKPOINT_FORMAT)
        return clmc_fail(CLMC_ERR_INPUT, "checkpoint: format version %u; this clmc reads version %d",
                         (unsigned)format, CLMC_CHECKPOINT_FORMAT);
    clmc_status status = get_sections(r, c);
    if (status != CLMC_OK) clmc_checkpoint_free(c);
    return status;
}

void clmc_checkpoint_free(clmc_checkpoint *c)
{
    free(c->engine_version);
    free(c->device_name);
    free(c->preset_json);
    free(c->config_at);
    free(c->heading);
    free(c->accepted);
    free(c->attempted);
    free(c->sweeps);
    free(c->rows);
    free(c->model_blob);
    free(c->ensemble_blob);
    memset(c, 0, sizeof *c);
}

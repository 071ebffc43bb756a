/* Result files are written whole or not at all: temporary file, fsync, rename. */
#include "output/results.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

clmc_status clmc_make_directory(const char *path)
{
    char partial[4096];
    if (snprintf(partial, sizeof partial, "%s", path) >= (int)sizeof partial)
        return clmc_fail(CLMC_ERR_INPUT, "output.dir: path too long");
    for (char *p = partial + 1;; p++) {
        bool end = *p == '\0';
        if (*p != '/' && !end) continue;
        *p = '\0';
        if (mkdir(partial, 0755) != 0 && errno != EEXIST)
            return clmc_fail(CLMC_ERR_OTHER, "cannot create output directory '%s': %s", partial, strerror(errno));
        if (end) break;
        *p = '/';
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return clmc_fail(CLMC_ERR_OTHER, "output path '%s' is not a directory", path);
    if (access(path, W_OK) != 0)
        return clmc_fail(CLMC_ERR_OTHER, "output directory '%s' is not writable", path);
    return CLMC_OK;
}

clmc_status clmc_write_file_atomic(const char *dir, const char *name, const char *data, size_t length)
{
    char path[4096], temp[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(temp, sizeof temp, "%s/.%s.%ld.tmp", dir, name, (long)getpid());
    int fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return clmc_fail(CLMC_ERR_OTHER, "cannot write %s: %s", temp, strerror(errno));
    size_t written = 0;
    while (written < length) {
        ssize_t n = write(fd, data + written, length - written);
        if (n <= 0) break;
        written += (size_t)n;
    }
    bool ok = written == length && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(temp, path) != 0) {
        int saved = errno;
        unlink(temp);
        return clmc_fail(CLMC_ERR_OTHER, "cannot write %s: %s", path, strerror(saved));
    }
    return CLMC_OK;
}

clmc_status clmc_remove_file(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (unlink(path) != 0 && errno != ENOENT)
        return clmc_fail(CLMC_ERR_OTHER, "cannot remove %s: %s", path, strerror(errno));
    return CLMC_OK;
}

cJSON *clmc_launch_options_json(const clmc_launch_options *launch)
{
    cJSON *options = cJSON_CreateObject();
    cJSON_AddBoolToObject(options, "profile", launch && launch->profile);
    cJSON_AddStringToObject(options, "tuning", launch && launch->no_tuning ? "off" : "on");
    return options;
}

cJSON *clmc_device_json(const clmc_device_info *d)
{
    cJSON *device = cJSON_CreateObject();
    cJSON_AddStringToObject(device, "platform", d->platform);
    cJSON_AddStringToObject(device, "name", d->name);
    cJSON_AddStringToObject(device, "vendor", d->vendor);
    cJSON_AddStringToObject(device, "driver", d->driver);
    cJSON_AddStringToObject(device, "type", d->type);
    char index[32];
    snprintf(index, sizeof index, "%d:%d", d->platform_index, d->device_index);
    cJSON_AddStringToObject(device, "index", index);
    cJSON_AddNumberToObject(device, "compute_units", d->compute_units);
    return device;
}

char *clmc_series_csv(const char *const *columns, size_t n_columns, const uint64_t *sweeps,
                      const double *rows, size_t n_rows)
{
    size_t capacity = 64 + n_columns * 32 + n_rows * (24 + 26 * n_columns);
    char *text = malloc(capacity);
    if (!text) return NULL;
    size_t at = (size_t)snprintf(text, capacity, "sweep");
    for (size_t c = 0; c < n_columns; c++)
        at += (size_t)snprintf(text + at, capacity - at, ",%s", columns[c]);
    at += (size_t)snprintf(text + at, capacity - at, "\n");
    for (size_t r = 0; r < n_rows; r++) {
        at += (size_t)snprintf(text + at, capacity - at, "%llu", (unsigned long long)sweeps[r]);
        for (size_t c = 0; c < n_columns; c++)
            at += (size_t)snprintf(text + at, capacity - at, ",%.17g", rows[r * n_columns + c]);
        at += (size_t)snprintf(text + at, capacity - at, "\n");
    }
    return text;
}

char *clmc_read_text_file(const char *path, size_t max_bytes, int *error)
{
    FILE *file = fopen(path, "rb");
    if (!file) {
        *error = errno;
        return NULL;
    }
    char *text = malloc(max_bytes + 1);
    size_t length = text ? fread(text, 1, max_bytes + 1, file) : 0;
    *error = !text ? ENOMEM : ferror(file) ? EIO : length > max_bytes ? EFBIG : 0;
    fclose(file);
    if (*error) {
        free(text);
        return NULL;
    }
    text[length] = '\0';
    return text;
}

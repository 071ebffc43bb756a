/* Kernel programs: source loading with include expansion, and a binary cache
 * keyed by everything that can change the compiled code (STYLE.md 3). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/runtime_internal.h"

#define CACHE_FORMAT_VERSION 1
#define MAX_INCLUDE_DEPTH 8

typedef struct { char *text; size_t length, capacity; } text_buffer;

static bool buffer_append(text_buffer *b, const char *s, size_t n)
{
    if (b->length + n + 1 > b->capacity) {
        size_t capacity = (b->length + n + 1) * 2;
        char *grown = realloc(b->text, capacity);
        if (!grown) return false;
        b->text = grown;
        b->capacity = capacity;
    }
    memcpy(b->text + b->length, s, n);
    b->length += n;
    b->text[b->length] = '\0';
    return true;
}

static char *read_file(const char *path, size_t *length)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    text_buffer b = {0};
    char chunk[8192];
    size_t n;
    bool ok = true;
    while (ok && (n = fread(chunk, 1, sizeof chunk, f)) > 0) ok = buffer_append(&b, chunk, n);
    fclose(f);
    if (!ok || !b.text) {
        free(b.text);
        return ok ? calloc(1, 1) : NULL;
    }
    if (length) *length = b.length;
    return b.text;
}

/* Directory holding the kernel sources: $CLMC_KERNEL_DIR when set (which
 * must hold them: a wrong path is an error, not a silent fallback), else the
 * source tree the binary was built from, then the install prefix. */
static clmc_status kernel_dir(const char **out)
{
    const char *candidates[] = {getenv("CLMC_KERNEL_DIR"), CLMC_SOURCE_KERNEL_DIR, CLMC_INSTALL_KERNEL_DIR};
    for (int i = 0; i < 3; i++) {
        const char *dir = candidates[i];
        if (!dir || !*dir) continue;
        char probe[4096];
        snprintf(probe, sizeof probe, "%s/common/philox.h", dir);
        if (access(probe, R_OK) == 0) {
            *out = dir;
            return CLMC_OK;
        }
        if (i == 0)
            return clmc_fail(CLMC_ERR_INPUT, "CLMC_KERNEL_DIR=%s holds no clmc kernel sources (no common/philox.h "
                             "there); point it at the clmc 'cl' directory or unset it", dir);
    }
    return clmc_fail(CLMC_ERR_OTHER, "kernel sources not found: set CLMC_KERNEL_DIR to the clmc 'cl' directory "
                     "(looked in %s and %s)", CLMC_SOURCE_KERNEL_DIR, CLMC_INSTALL_KERNEL_DIR);
}

static clmc_status expand_source(const char *dir, const char *file, int depth, text_buffer *out)
{
    if (depth > MAX_INCLUDE_DEPTH)
        return clmc_fail(CLMC_ERR_OTHER, "kernel includes nest too deeply at %s", file);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *text = read_file(path, NULL);
    if (!text) return clmc_fail(CLMC_ERR_OTHER, "cannot read kernel source %s: %s", path, strerror(errno));
    clmc_status status = CLMC_OK;
    for (char *line = text; *line && status == CLMC_OK;) {
        char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line + 1) : strlen(line);
        char name[256];
        /* Blanks, not " " in the format, which would skip a blank line and
         * expand the include on the next line twice. */
        size_t indent = strspn(line, " \t");
        if (sscanf(line + indent, "#include \"%255[^\"]\"", name) == 1)
            status = expand_source(dir, name, depth + 1, out);
        else if (!buffer_append(out, line, n))
            status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
        line += n;
    }
    free(text);
    return status;
}

static uint64_t fnv1a(uint64_t hash, const char *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        hash ^= (unsigned char)data[i];
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

/* The key text names everything the binary depends on; its hash names the file. */
static char *cache_key_text(const clmc_runtime *rt, const char *source, const char *options)
{
    uint64_t source_hash = fnv1a(0xcbf29ce484222325ULL, source, strlen(source));
    size_t n = strlen(options) + 2048;
    char *key = malloc(n);
    if (key)
        snprintf(key, n, "clmc-program-cache %d\nsource %016llx\noptions %s\ndevice %s\n"
                 "driver %s\ndevice-version %s\nplatform %s %s\n",
                 CACHE_FORMAT_VERSION, (unsigned long long)source_hash, options, rt->info.name,
                 rt->info.driver, rt->info.version, rt->info.platform, rt->info.platform_version);
    return key;
}

static bool cache_dir(char *out, size_t n)
{
    const char *env = getenv("CLMC_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (env && *env) snprintf(out, n, "%s", env);
    else if (xdg && *xdg) snprintf(out, n, "%s/clmc", xdg);
    else if (home && *home) snprintf(out, n, "%s/.cache/clmc", home);
    else return false;
    return true;
}

static void make_dirs(const char *path)
{
    char partial[4096];
    snprintf(partial, sizeof partial, "%s", path);
    for (char *p = partial + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        mkdir(partial, 0755);
        *p = '/';
    }
    mkdir(partial, 0755);
}

static bool cache_path(const char *key, char *out, size_t n)
{
    char dir[3072];
    if (!cache_dir(dir, sizeof dir)) return false;
    snprintf(out, n, "%s/%016llx.bin", dir, (unsigned long long)fnv1a(0xcbf29ce484222325ULL, key, strlen(key)));
    return true;
}

/* A cache entry is the key text, a NUL, then the binary; a mismatched key
 * (hash collision or stale format) is treated as a miss. */
static unsigned char *cache_load(const char *key, size_t *binary_length)
{
    char path[4096];
    size_t length = 0, key_length = strlen(key) + 1;
    if (!cache_path(key, path, sizeof path)) return NULL;
    char *entry = read_file(path, &length);
    if (!entry) return NULL;
    if (length <= key_length || memcmp(entry, key, key_length) != 0) {
        free(entry);
        return NULL;
    }
    *binary_length = length - key_length;
    unsigned char *binary = malloc(*binary_length);
    if (binary) memcpy(binary, entry + key_length, *binary_length);
    free(entry);
    return binary;
}

static void cache_store(const char *key, const unsigned char *binary, size_t binary_length)
{
    char path[4096], dir[3072], temp[4200];
    if (!cache_path(key, path, sizeof path) || !cache_dir(dir, sizeof dir)) return;
    make_dirs(dir);
    snprintf(temp, sizeof temp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(temp, "wb");
    if (!f) return;
    bool ok = fwrite(key, 1, strlen(key) + 1, f) == strlen(key) + 1 &&
              fwrite(binary, 1, binary_length, f) == binary_length;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(temp, path) != 0) remove(temp);
}

/* Processes that need the same program at the same time (the ranks of an MPI
 * launch) build it once: the first holds an fcntl lock on the entry's .lock
 * file while it builds and stores; the others wait, then load the stored
 * binary.  -1 (no lock: no cache directory, a file system without locks):
 * each builds its own, as before.  Closing the descriptor releases it. */
static int cache_lock(const char *key)
{
    char path[4096], dir[3072], lock[4200];
    if (!cache_path(key, path, sizeof path) || !cache_dir(dir, sizeof dir)) return -1;
    make_dirs(dir);
    snprintf(lock, sizeof lock, "%s.lock", path);
    int fd = open(lock, O_RDWR | O_CREAT, 0644);
    if (fd < 0) return -1;
    struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    while (fcntl(fd, F_SETLKW, &whole) != 0) {
        if (errno == EINTR) continue;
        close(fd);
        return -1;
    }
    return fd;
}

static clmc_status build_log_failure(clmc_runtime *rt, cl_program program, const char *file, cl_int err)
{
    size_t n = 0;
    clGetProgramBuildInfo(program, rt->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = calloc(n + 1, 1);
    if (log) clGetProgramBuildInfo(program, rt->device, CL_PROGRAM_BUILD_LOG, n, log, NULL);
    clmc_status status = clmc_fail(CLMC_ERR_DEVICE, "clBuildProgram(%s) failed: %s on %s\n%s", file,
                                   clmc_cl_error_name(err), rt->info.name, log ? log : "");
    free(log);
    return status;
}

static cl_program program_from_binary(clmc_runtime *rt, const unsigned char *binary, size_t n,
                                      const char *options)
{
    cl_int err, binary_status;
    cl_program program = clCreateProgramWithBinary(rt->context, 1, &rt->device, &n, &binary,
                                                   &binary_status, &err);
    if (err != CL_SUCCESS) return NULL;
    if (binary_status != CL_SUCCESS || clBuildProgram(program, 1, &rt->device, options, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(program);
        return NULL;
    }
    return program;
}

static void store_program_binary(clmc_runtime *rt, cl_program program, const char *key)
{
    size_t n = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL) != CL_SUCCESS || n == 0)
        return;
    unsigned char *binary = malloc(n);
    if (binary && clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL) == CL_SUCCESS)
        cache_store(key, binary, n);
    free(binary);
    (void)rt;
}

/* $CLMC_SHOW_BUILD_LOG: print the compiler's log of every build from source
 * (with $CLMC_BUILD_OPTIONS="-cl-nv-verbose", NVIDIA reports register use). */
static void show_build_log(clmc_runtime *rt, cl_program program, const char *file)
{
    const char *show = getenv("CLMC_SHOW_BUILD_LOG");
    if (!show || !*show) return;
    size_t n = 0;
    clGetProgramBuildInfo(program, rt->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = calloc(n + 1, 1);
    if (log && clGetProgramBuildInfo(program, rt->device, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS)
        fprintf(stderr, "clmc: build log of %s on %s:\n%s\n", file, rt->info.name, log);
    free(log);
}

static clmc_status program_from_source(clmc_runtime *rt, const char *file, const char *source,
                                       const char *options, cl_program *out)
{
    cl_int err;
    cl_program program = clCreateProgramWithSource(rt->context, 1, &source, NULL, &err);
    CLMC_CL_CHECK(err, "clCreateProgramWithSource");
    err = clBuildProgram(program, 1, &rt->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        clmc_status status = build_log_failure(rt, program, file, err);
        clReleaseProgram(program);
        return status;
    }
    show_build_log(rt, program, file);
    *out = program;
    return CLMC_OK;
}

/* $CLMC_BUILD_TRACE: append one line per program (file, options, where it came
 * from, seconds) to that file: which -D sets a test suite builds (tests/README.md). */
static void trace_build(const char *file, const char *options, const char *how, double seconds)
{
    const char *path = getenv("CLMC_BUILD_TRACE");
    if (!path || !*path) return;
    FILE *f = fopen(path, "a");
    if (!f) return;
    fprintf(f, "%s\t%s\t%s\t%.3f\n", file, options, how, seconds);
    fclose(f);
}

clmc_status clmc_program_build(clmc_runtime *rt, const char *file, const char *options, cl_program *out)
{
    double started = clmc_runtime_clock(); /* reading the sources and the cache included */
    const char *dir = NULL;
    CLMC_TRY(kernel_dir(&dir));
    char all_options[4096];
    const char *extra = getenv("CLMC_BUILD_OPTIONS");
    if ((size_t)snprintf(all_options, sizeof all_options, "%s %s", options, extra ? extra : "") >= sizeof all_options)
        return clmc_fail(CLMC_ERR_INPUT, "build options of %s are longer than %zu characters (CLMC_BUILD_OPTIONS "
                         "included)", file, sizeof all_options - 1);
    options = all_options;
    text_buffer source = {0};
    clmc_status status = expand_source(dir, file, 0, &source);
    if (status != CLMC_OK) {
        free(source.text);
        return status;
    }
    bool use_cache = !getenv("CLMC_NO_CACHE") || !*getenv("CLMC_NO_CACHE");
    char *key = use_cache ? cache_key_text(rt, source.text, options) : NULL;
    size_t binary_length = 0;
    int lock = key ? cache_lock(key) : -1;
    unsigned char *binary = key ? cache_load(key, &binary_length) : NULL;
    *out = binary ? program_from_binary(rt, binary, binary_length, options) : NULL;
    free(binary);
    const char *how = !key ? "from source, cache off" : *out ? "from the cache" : "from source, not cached";
    if (!*out) {
        status = program_from_source(rt, file, source.text, options, out);
        if (status == CLMC_OK && key) store_program_binary(rt, *out, key);
    }
    if (lock >= 0) close(lock);
    double seconds = clmc_runtime_clock() - started;
    rt->program_seconds += seconds;
    if (clmc_runtime_profiling(rt)) fprintf(stderr, "clmc profile: program %s built %s in %.3f s\n", file, how, seconds);
    trace_build(file, options, how, seconds);
    free(key);
    free(source.text);
    return status;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Paths and contents of every kernel source (.cl, .h) under `subdir` of the
 * kernel directory, folders included, in name order, folded into *hash. */
static clmc_status hash_kernel_folder(const char *dir, const char *subdir, int depth, uint64_t *hash)
{
    if (depth > MAX_INCLUDE_DEPTH) return clmc_fail(CLMC_ERR_OTHER, "kernel folders nest too deeply at %s", subdir);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, subdir);
    DIR *folder = opendir(path);
    if (!folder) return clmc_fail(CLMC_ERR_OTHER, "cannot list kernel sources in %s: %s", path, strerror(errno));
    char *names[512];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(folder)) && n < 512;)
        if (e->d_name[0] != '.' && (names[n] = strdup(e->d_name))) n++;
    closedir(folder);
    qsort(names, n, sizeof *names, compare_names);
    clmc_status status = CLMC_OK;
    for (size_t i = 0; i < n; i++) {
        char relative[2048];
        snprintf(relative, sizeof relative, "%s/%s", subdir, names[i]);
        snprintf(path, sizeof path, "%s/%s", dir, relative);
        size_t length = strlen(names[i]);
        bool source = length > 3 && (strcmp(names[i] + length - 3, ".cl") == 0 || strcmp(names[i] + length - 2, ".h") == 0);
        struct stat info;
        if (status == CLMC_OK && stat(path, &info) == 0 && S_ISDIR(info.st_mode)) {
            status = hash_kernel_folder(dir, relative, depth + 1, hash);
        } else if (status == CLMC_OK && source) {
            char *text = read_file(path, &length);
            *hash = fnv1a(*hash, relative, strlen(relative) + 1);
            if (text) *hash = fnv1a(*hash, text, length);
            free(text);
        }
        free(names[i]);
    }
    return status;
}

clmc_status clmc_kernel_sources_hash(uint64_t *hash)
{
    const char *dir = NULL;
    CLMC_TRY(kernel_dir(&dir));
    *hash = 0xcbf29ce484222325ULL;
    return hash_kernel_folder(dir, ".", 0, hash);
}

clmc_status clmc_kernel_create(cl_program program, const char *name, cl_kernel *kernel)
{
    cl_int err;
    *kernel = clCreateKernel(program, name, &err);
    if (err != CL_SUCCESS)
        return clmc_fail(CLMC_ERR_DEVICE, "clCreateKernel(%s) failed: %s", name, clmc_cl_error_name(err));
    return CLMC_OK;
}

clmc_status clmc_kernel_set_first_system(cl_kernel kernel, cl_uint first_system)
{
    cl_uint args = 0;
    cl_int err = clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof args, &args, NULL);
    if (err == CL_SUCCESS && args == 0) err = CL_INVALID_KERNEL_ARGS;
    if (err == CL_SUCCESS) err = clSetKernelArg(kernel, args - 1, sizeof first_system, &first_system);
    if (err != CL_SUCCESS)
        return clmc_fail(CLMC_ERR_DEVICE, "first_system (the kernel's last argument): %s", clmc_cl_error_name(err));
    return CLMC_OK;
}

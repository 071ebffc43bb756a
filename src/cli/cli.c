/* The clmc command line: a thin user of the engine API (docs/interface.md, "Command line"). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clmc/engine.h"
#include "clmc/preset.h"
#include "clmc/runtime.h"
#include "cli/bench_report.h"
#include "cli/scan.h"
#include "engine/interrupt.h"
#include "output/results.h"
#include "runtime/ranks.h"

#define MAX_OVERRIDES 256

/* clmc_runtime_clock() at main's start: runs time their start-up from it. */
static double command_started;

static const char usage_text[] =
    "usage:\n"
    "  clmc devices [--json] [--bandwidth]\n"
    "  clmc check PRESET.json [--set PATH=VALUE]...\n"
    "  clmc run PRESET.json [--device SEL] [--out DIR] [--set PATH=VALUE]... [--quiet]\n"
    "                       [--profile] [--no-tuning] [--overwrite]\n"
    "  clmc run [PRESET.json] --resume DIR [--device SEL] [--quiet] [--profile]\n"
    "  clmc bench PRESET.json [--devices SEL,SEL,...|all] [--json FILE] [--repetitions N]\n"
    "                         [--compare OLD.json] [--set PATH=VALUE]... [--profile] [--no-tuning]\n"
    "  clmc tune PRESET.json [--device SEL] [--repetitions N] [--set PATH=VALUE]... [--quiet]\n"
    "                        [--profile]\n"
    "  clmc scan JOB.json [--out DIR] [--devices SEL,SEL,...|all] [--jobs N] [--quiet]\n"
    "  clmc --version | --help\n"
    "(COMMAND --help also prints this.)  Each option may be given once; --set repeats.\n"
    "SEL: P:D from 'clmc devices', or a case-insensitive part of the platform, vendor,\n"
    "device name or type (nvidia, pocl, cpu, gpu). Default: $CLMC_DEVICE, else the first GPU,\n"
    "else the first CPU. --profile: a table of every kernel's launches and device time on\n"
    "stderr; --no-tuning: tunable keys left automatic take the model's own defaults, not\n"
    "the tuning cache or the built-in table; --overwrite: start afresh over an earlier run's\n"
    "checkpoint in the output directory (refused otherwise). Exit status: 0 ok, 2 bad usage or preset, 3 device failure, 1 other\n"
    "(an interrupted run included: SIGINT/SIGTERM/SIGHUP write a checkpoint for --resume first).\n";

static int usage_error(const char *fmt, const char *arg)
{
    if (!clmc_ranks_reports()) return CLMC_ERR_INPUT; /* rank 0 says it */
    fprintf(stderr, "clmc: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage_text);
    return CLMC_ERR_INPUT;
}

/* Under several MPI ranks one rank prints an error (src/runtime/ranks.h). */
static int report(clmc_status status)
{
    if (status != CLMC_OK && clmc_ranks_reports()) fprintf(stderr, "clmc: error: %s\n", clmc_error_message());
    return (int)status;
}

typedef struct {
    const char *preset_path, *device, *devices, *out_dir, *json_file, *compare_file, *resume_dir;
    const char *overrides[MAX_OVERRIDES + 1];
    size_t n_overrides;
    bool quiet, json, bandwidth, overwrite;
    clmc_launch_options launch;
    int repetitions;
    char out_override[4200];
    char *invocation;
} cli_args;

/* An option given twice (a value would silently win); --set repeats. */
static bool repeated_option(char **argv, int i, const int *options, int n_options)
{
    if (strcmp(argv[i], "--set") == 0) return false;
    for (int k = 0; k < n_options; k++)
        if (strcmp(argv[options[k]], argv[i]) == 0) return true;
    return false;
}

/* Options each command accepts, as a string of their letters. */
static int parse_args(int argc, char **argv, const char *accepted, cli_args *a)
{
    int options[64], n_options = 0; /* where the options seen so far stand in argv */
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        bool has_value = i + 1 < argc;
        if (arg[0] == '-' && arg[1] == '-') {
            if (repeated_option(argv, i, options, n_options))
                return usage_error("option '%s' given twice", arg);
            if (n_options < (int)(sizeof options / sizeof options[0])) options[n_options++] = i;
        }
#define OPTION(text, letter) (strcmp(arg, text) == 0 && strchr(accepted, letter))
        if (OPTION("--json", 'j') && strcmp(argv[1], "devices") == 0) a->json = true;
        else if (OPTION("--quiet", 'q')) a->quiet = true;
        else if (OPTION("--bandwidth", 'b')) a->bandwidth = true;
        else if (OPTION("--profile", 'p')) a->launch.profile = true;
        else if (OPTION("--no-tuning", 'n')) a->launch.no_tuning = true;
        else if (OPTION("--overwrite", 'w')) a->overwrite = true;
        else if (OPTION("--set", 's') && has_value) {
            if (a->n_overrides == MAX_OVERRIDES) return usage_error("too many --set options%s", "");
            a->overrides[a->n_overrides++] = argv[++i];
        } else if (OPTION("--device", 'd') && has_value) a->device = argv[++i];
        else if (OPTION("--devices", 'D') && has_value) a->devices = argv[++i];
        else if (OPTION("--out", 'o') && has_value) a->out_dir = argv[++i];
        else if (OPTION("--resume", 'R') && has_value) a->resume_dir = argv[++i];
        else if (OPTION("--json", 'j') && has_value) a->json_file = argv[++i];
        else if (OPTION("--compare", 'c') && has_value) a->compare_file = argv[++i];
        else if (OPTION("--repetitions", 'r') && has_value) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end || n < 1 || n > 1000) return usage_error("--repetitions expects 1..1000, got '%s'", argv[i]);
            a->repetitions = (int)n;
        } else if (arg[0] == '-' && arg[1] == '-') return usage_error("unknown or incomplete option '%s'", arg);
        else if (!a->preset_path && strchr(accepted, 'P')) a->preset_path = arg;
        else return usage_error("unexpected argument '%s'", arg);
#undef OPTION
    }
    if (strchr(accepted, 'P') && !a->preset_path && !a->resume_dir) return usage_error("missing PRESET.json%s", "");
    return 0;
}

/* --out DIR becomes an override of output.dir, JSON-quoted so any path stays a string. */
static void add_out_override(cli_args *a)
{
    if (!a->out_dir) return;
    cJSON *quoted = cJSON_CreateString(a->out_dir);
    char *text = cJSON_PrintUnformatted(quoted);
    snprintf(a->out_override, sizeof a->out_override, "output.dir=%s", text ? text : "\"\"");
    free(text);
    cJSON_Delete(quoted);
    a->overrides[a->n_overrides++] = a->out_override;
}

/* Each device's own device-to-device copy bandwidth (read + write bytes per
 * second), the reference of the bench table's roofline fraction; 0 where
 * the device fails (the reason goes to stderr). */
static void measure_bandwidths(const clmc_device_info *devices, size_t n, double *bytes_per_second)
{
    for (size_t i = 0; i < n; i++) {
        clmc_runtime *rt = NULL;
        clmc_status status = clmc_runtime_open_device(&devices[i], &rt);
        if (status == CLMC_OK) status = clmc_measure_copy_bandwidth(rt, &bytes_per_second[i]);
        if (status != CLMC_OK) {
            bytes_per_second[i] = 0;
            fprintf(stderr, "clmc: %s: no bandwidth figure: %s\n", devices[i].name, clmc_error_message());
        }
        clmc_runtime_close(rt);
    }
}

static int cmd_devices(int argc, char **argv)
{
    cli_args a = {0};
    int rc = parse_args(argc, argv, "jb", &a);
    if (rc) return rc;
    clmc_device_info *devices = NULL;
    size_t n = 0;
    clmc_status status = clmc_device_list(&devices, &n);
    if (status != CLMC_OK) return report(status);
    double *bandwidth = calloc(n ? n : 1, sizeof *bandwidth);
    if (!bandwidth) return report(clmc_fail(CLMC_ERR_OTHER, "out of host memory"));
    if (a.bandwidth) measure_bandwidths(devices, n, bandwidth);
    if (a.json) {
        cJSON *list = cJSON_CreateArray();
        for (size_t i = 0; i < n; i++) {
            cJSON *device = clmc_device_json(&devices[i]);
            if (a.bandwidth) {
                cJSON *metric = cJSON_AddObjectToObject(device, "copy_bandwidth");
                cJSON_AddNumberToObject(metric, "value", bandwidth[i]);
                cJSON_AddStringToObject(metric, "unit", "B/s");
                cJSON_AddStringToObject(metric, "status", bandwidth[i] > 0 ? "ok" : "failed");
            }
            cJSON_AddItemToArray(list, device);
        }
        char *text = cJSON_Print(list);
        printf("%s\n", text ? text : "[]");
        free(text);
        cJSON_Delete(list);
    } else {
        for (size_t i = 0; i < n; i++) {
            printf("%d:%d  %-4s  %s | %s | %s | driver %s", devices[i].platform_index, devices[i].device_index,
                   devices[i].type, devices[i].platform, devices[i].vendor, devices[i].name, devices[i].driver);
            if (a.bandwidth) printf(" | copy %.1f GB/s", bandwidth[i] * 1e-9);
            printf("\n");
        }
    }
    free(bandwidth);
    free(devices);
    return 0;
}

static int load_preset(cli_args *a, clmc_preset **preset)
{
    return report(clmc_preset_load(a->preset_path, a->overrides, a->n_overrides, preset));
}

static int cmd_check(int argc, char **argv)
{
    cli_args a = {0};
    clmc_preset *preset = NULL;
    int rc = parse_args(argc, argv, "Ps", &a);
    if (rc || (rc = load_preset(&a, &preset))) return rc;
    char *text = clmc_preset_to_json(preset);
    printf("%s\n", text ? text : "");
    free(text);
    clmc_preset_free(preset);
    return 0;
}

/* The checkpoint holds the resolved preset: PRESET.json, if given, is not
 * read, and nothing may change the preset of a resumed run. */
static int resume_run(const cli_args *a)
{
    if (a->n_overrides || a->out_dir)
        return usage_error("--resume continues the checkpointed run as it was; --set and --out are not allowed%s", "");
    if (a->preset_path && !a->quiet)
        fprintf(stderr, "clmc: resuming with the preset stored in the checkpoint (%s is not read)\n", a->preset_path);
    if (a->launch.no_tuning)
        return usage_error("--resume continues with the launch parameters the run resolved; --no-tuning is not "
                           "allowed%s", "");
    if (a->overwrite) return usage_error("--overwrite starts a fresh run; it does not go with --resume%s", "");
    clmc_run_options options = {.device = a->device, .quiet = a->quiet, .launch = a->launch,
                                .started = command_started};
    int rc = report(clmc_resume(a->resume_dir, &options));
    if (rc == 0 && !a->quiet && clmc_ranks()->rank == 0) fprintf(stderr, "clmc: results in %s/\n", a->resume_dir);
    return rc;
}

static int cmd_run(int argc, char **argv)
{
    cli_args a = {0};
    clmc_preset *preset = NULL;
    int rc = parse_args(argc, argv, "PsdoqRpnw", &a);
    if (rc) return rc;
    clmc_interrupt_install();
    if (a.resume_dir) return resume_run(&a);
    add_out_override(&a);
    if ((rc = load_preset(&a, &preset))) return rc;
    clmc_run_options options = {.device = a.device, .quiet = a.quiet, .overwrite = a.overwrite, .launch = a.launch,
                                .started = command_started};
    rc = report(clmc_run(preset, &options));
    if (rc == 0 && !a.quiet && clmc_ranks()->rank == 0)
        fprintf(stderr, "clmc: results in %s/\n", clmc_preset_output(preset)->dir);
    clmc_preset_free(preset);
    return rc;
}

static int run_bench(cli_args *a, const clmc_device_info *devices, size_t n)
{
    clmc_bench_entry *entries = calloc(n ? n : 1, sizeof *entries);
    if (!entries) return report(clmc_fail(CLMC_ERR_OTHER, "out of host memory"));
    for (size_t i = 0; i < n; i++) {
        clmc_preset *preset = NULL;
        int rc = load_preset(a, &preset);
        if (rc) {
            free(entries);
            return rc;
        }
        if (!a->quiet) fprintf(stderr, "clmc: benchmarking on %s ...\n", devices[i].name);
        clmc_bench_device(preset, &devices[i], a->repetitions, &a->launch, &entries[i]);
        clmc_preset_free(preset);
    }
    clmc_preset *preset = NULL;
    int rc = load_preset(a, &preset);
    if (rc == 0) {
        clmc_bench_print_table(stdout, entries, n);
        if (a->json_file)
            rc = report(clmc_bench_write_json(a->json_file, preset, a->invocation, &a->launch, entries, n));
        if (rc == 0 && a->compare_file) rc = report(clmc_bench_compare(stdout, a->compare_file, preset, entries, n));
    }
    clmc_preset_free(preset);
    for (size_t i = 0; i < n && rc == 0; i++) rc = (int)entries[i].status;
    for (size_t i = 0; i < n; i++) free(entries[i].resolved_preset);
    free(entries);
    return rc;
}

static int cmd_bench(int argc, char **argv)
{
    cli_args a = {.repetitions = 5};
    clmc_preset *preset = NULL;
    int rc = parse_args(argc, argv, "PsDjrqcpn", &a);
    if (rc || (rc = load_preset(&a, &preset))) return rc;
    clmc_preset_free(preset);
    if (a.compare_file && (rc = report(clmc_bench_check_compare_file(a.compare_file)))) return rc;
    if (a.json_file && (rc = report(clmc_bench_check_json_path(a.json_file)))) return rc;
    clmc_device_info *devices = NULL;
    size_t n = 0;
    clmc_status status = clmc_bench_select_devices(a.devices, &devices, &n);
    if (status != CLMC_OK) return report(status);
    a.invocation = clmc_join_arguments(argc, argv);
    rc = run_bench(&a, devices, n);
    free(a.invocation);
    free(devices);
    return rc;
}

/* Searches the model's tunable keys on one device and stores the fastest
 * passing values in the tuning cache. */
static int cmd_tune(int argc, char **argv)
{
    cli_args a = {.repetitions = 5};
    clmc_preset *preset = NULL;
    int rc = parse_args(argc, argv, "Psdrqp", &a);
    if (rc || (rc = load_preset(&a, &preset))) return rc;
    clmc_tune_options options = {.device = a.device, .repetitions = a.repetitions, .quiet = a.quiet,
                                 .profile = a.launch.profile};
    clmc_tune_result result;
    rc = report(clmc_tune(preset, &options, &result));
    clmc_preset_free(preset);
    return rc;
}

/* Environment variables that once changed what a run computed or which
 * kernels ran, and what replaced each (STYLE.md 14: the environment only
 * describes the deployment). */
static const char *const retired_variables[][2] = {
    {"CLMC_PROFILE", "use the --profile flag instead"},
    {"CLMC_NO_TUNING", "use the --no-tuning flag instead"},
    {"CLMC_TEMPERING_HOST", "use the preset key ensemble.exchanges = \"host\" instead"},
    {"CLMC_TEMPERING_GENERAL", "use the preset key ensemble.exchanges = \"general\" instead"},
    {"CLMC_EA_ENERGIES", "use the preset key algorithm.tempering_energies instead"},
    {"CLMC_EA_UPDATE_WG", "use the preset key algorithm.update_group instead"},
    {"CLMC_EA_ENERGY_SITES", "use the preset key algorithm.energy_sites instead"},
    {"CLMC_EA_REVERSE", "use the preset key algorithm.reverse_odd instead"},
    {"CLMC_GLASS_VARIANT",
     "the glass has one update kernel; its launch shape is algorithm.work_group and algorithm.sites_per_item"},
};

/* A retired variable set (even empty) stops the command rather than being
 * silently ignored. */
static int refuse_retired_variables(void)
{
    for (size_t i = 0; i < sizeof retired_variables / sizeof *retired_variables; i++)
        if (getenv(retired_variables[i][0])) {
            fprintf(stderr, "clmc: environment variable %s is no longer read: %s (and unset it)\n",
                    retired_variables[i][0], retired_variables[i][1]);
            return CLMC_ERR_INPUT;
        }
    return 0;
}

/* "clmc COMMAND ... --help" (or -h): the usage, whatever else is given. */
static bool asks_for_help(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return true;
    return false;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) return usage_error("missing command%s", "");
    const char *command = argv[1];
    if (strcmp(command, "--version") == 0) {
        printf("clmc %s\n", CLMC_VERSION);
        return 0;
    }
    if (strcmp(command, "--help") == 0 || strcmp(command, "help") == 0 || asks_for_help(argc, argv)) {
        printf("%s", usage_text);
        return 0;
    }
    if (clmc_ranks_many() && strcmp(command, "run") != 0)
        return usage_error("clmc %s runs in one process; under mpirun only 'clmc run' is distributed", command);
    if (strcmp(command, "devices") == 0) return cmd_devices(argc, argv);
    bool uses_presets = strcmp(command, "check") == 0 || strcmp(command, "run") == 0 ||
                        strcmp(command, "bench") == 0 || strcmp(command, "tune") == 0 ||
                        strcmp(command, "scan") == 0;
    int rc = uses_presets ? refuse_retired_variables() : 0;
    if (rc) return rc;
    if (strcmp(command, "check") == 0) return cmd_check(argc, argv);
    if (strcmp(command, "run") == 0) return cmd_run(argc, argv);
    if (strcmp(command, "bench") == 0) return cmd_bench(argc, argv);
    if (strcmp(command, "tune") == 0) return cmd_tune(argc, argv);
    if (strcmp(command, "scan") == 0) return clmc_scan_command(argc, argv);
    return usage_error("unknown command '%s'", command);
}

/* Under mpirun every rank runs main (docs/mpi.md); without MPI, one rank. */
int main(int argc, char **argv)
{
    command_started = clmc_runtime_clock();
    clmc_ranks_init(&argc, &argv);
    int rc = dispatch(argc, argv);
    clmc_interrupt_release(); /* clmc run's handlers: a launcher's SIGTERM from here on is no request to checkpoint */
    if (rc != 0) clmc_ranks_settle(10.0);
    clmc_ranks_finalize();
    return rc;
}
